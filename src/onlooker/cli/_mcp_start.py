"""`onlooker mcp` as Claude Code starts it, without click: the MCP server's front must answer
within a fraction of a second (specs/mcp.md, "Start-up"), so `main` sends a plain `onlooker mcp`
straight to it; any other use goes through click (cli/mcp.py)."""

from __future__ import annotations


def sdk_installed() -> bool:
    """Whether the `mcp` SDK can be imported (found without importing it: the server answers
    its first requests before the SDK is loaded)."""
    from importlib.util import find_spec

    return find_spec("mcp") is not None and find_spec("mcp_types") is not None


def fast_options(args: list[str]) -> tuple[str, bool] | None:
    """`--session ID` and `--text-only`, the options Claude Code's registration may pass, read
    without click; None for anything else (click reads it, with its help and errors)."""
    session_id, text_only, rest = "", False, list(args)
    while rest:
        word = rest.pop(0)
        if word == "--text-only":
            text_only = True
        elif word == "--session" and rest and not rest[0].startswith("-"):
            session_id = rest.pop(0)
        elif word.startswith("--session=") and len(word) > len("--session="):
            session_id = word.partition("=")[2]
        else:
            return None
    return session_id, text_only


def serve_fast(args: list[str]) -> bool:
    """Serve `onlooker mcp ARGS` at once when click is not needed; False when it is."""
    options = fast_options(args)
    if options is None or not sdk_installed():
        return False
    from ..mcp.front import serve

    serve(None, *options)
    return True
