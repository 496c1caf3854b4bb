"""onlooker's MCP server: search, get_observations, read and observations over stdio.

`Tools` runs the tools without the SDK (what the server and the tests call); `front.serve`
answers the client's first requests with the standard library alone and hands the rest to the
official `mcp` package (`server.py`), imported only then. Nothing is imported here at first: the
front (`onlooker.mcp.front`) must start before anything heavy is loaded.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .tool_specs import TOOLS, ToolSpec
    from .tools import Answer, Tools

__all__ = ["TOOLS", "Answer", "ToolSpec", "Tools"]

_HOMES = {"TOOLS": ".tool_specs", "ToolSpec": ".tool_specs", "Answer": ".tools", "Tools": ".tools"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value
