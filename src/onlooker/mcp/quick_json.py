"""JSON for the MCP server's front (specs/mcp.md, "Start-up"), without importing `json`.

Importing `json` brings in `re` and `enum` and compiles its patterns: about 10 ms of CPU, more
than a bare Python start, paid by every Claude Code session before its first request. The
scanner and encoder `json` itself uses are the C ones of the built-in `_json` module; this module
drives them directly, with the settings `json.loads` and `json.dumps(ensure_ascii=False,
separators=(",", ":"))` give them. Anything it is not sure of (an input that is not plain UTF-8,
one that does not parse, a Python without those C functions) goes to `json` itself, so every
answer and every error is `json`'s own.
"""

# Only built-in modules at import time: this module runs before anything heavy is imported.

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

WHITESPACE = " \t\n\r"
"""What `json` skips around a document."""
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Settings:
    """What `json.JSONDecoder()` hands the C scanner: the attributes it reads."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def _not_serializable(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _c_functions() -> tuple[Callable[..., Any], Callable[..., Any]] | None:
    """The C scanner and encoder, set up as `json` sets them up; None where they are missing
    or take other arguments (another Python): `json` is used then."""
    try:
        import _json

        scanner = _json.make_scanner(_Settings)  # type: ignore[arg-type]  # what it reads
        encoder = _json.make_encoder(
            {}, _not_serializable, _json.encode_basestring, None, ":", ",", False, False, True
        )
    except (ImportError, AttributeError, TypeError):
        return None
    return scanner, encoder


_C = _c_functions()


def loads(data: bytes | str) -> Any:
    """`json.loads(data)`: the same value, or the same error."""
    if _C is None:
        return _json_module().loads(data)
    if isinstance(data, bytes):
        # json.detect_encoding: UTF-8 unless a byte order mark or a zero byte comes first
        if data[:1] in (b"\xef", b"\xfe", b"\xff") or 0 in data[:2]:
            return _json_module().loads(data)
        try:
            text = data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return _json_module().loads(data)
    else:
        text = data
    start = len(text) - len(text.lstrip(WHITESPACE))
    try:
        value, end = _C[0](text, start)
    except (StopIteration, ValueError):
        return _json_module().loads(data)  # raises json's own error
    if text[end:].lstrip(WHITESPACE):
        return _json_module().loads(data)  # more after the value: json's error
    return value


def dumps(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=False, separators=(",", ":"))`."""
    if _C is None or isinstance(value, str):
        return str(_json_module().dumps(value, ensure_ascii=False, separators=(",", ":")))
    return "".join(_C[1](value, 0))


def _json_module() -> Any:
    loaded = sys.modules.get("json")
    if loaded is None:
        import json as loaded
    return loaded
