"""onlooker's MCP server: search, get_observations, read and observations over stdio.

`Tools` runs the tools without the SDK (what the server and the tests call); `serve_stdio`
serves them with the official `mcp` package, imported only when the server starts.
"""

from .tool_specs import TOOLS, ToolSpec
from .tools import Answer, Tools

__all__ = ["TOOLS", "Answer", "ToolSpec", "Tools"]
