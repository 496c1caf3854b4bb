"""`onlooker mcp` as Claude Code starts it, without click: the MCP server's front must answer
within a fraction of a second (specs/mcp.md, "Start-up"), so `main` sends a plain `onlooker mcp`
straight to it; any other use goes through click (cli/mcp.py). The launcher goes further and runs
the front without `site` (mcp/entry.py)."""

from __future__ import annotations

from ..mcp.front import fast_options
from ..mcp.sdk_found import sdk_installed

__all__ = ["fast_options", "sdk_installed", "serve_fast"]


def serve_fast(args: list[str]) -> bool:
    """Serve `onlooker mcp ARGS` at once when click is not needed; False when it is."""
    options = fast_options(args)
    if options is None or not sdk_installed():
        return False
    from ..mcp.front import serve

    serve(None, *options)
    return True
