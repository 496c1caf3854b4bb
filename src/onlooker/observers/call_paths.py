"""The paths a tool call works on, as Drift reads them: its file arguments, else the obvious
paths in its shell command (specs/observers.md, "Drift")."""

from __future__ import annotations

import re
from functools import lru_cache

from ..core.events import ToolCall

# fmt: off
SOURCE_SUFFIXES = frozenset({
    "py", "pyi", "js", "jsx", "ts", "tsx", "mjs", "cjs", "json", "md", "rst", "txt", "toml",
    "yaml", "yml", "cfg", "ini", "sh", "rs", "go", "java", "kt", "c", "h", "cc", "cpp", "hpp",
    "rb", "php", "html", "css", "scss", "sql", "ipynb", "lock", "xml", "csv",
})
"""Suffixes that make a bare word in a shell command a file name."""
# fmt: on
_SHELL_SPLIT = re.compile(r"[\s;|&<>()`'\"=]+")
_FILE_TOKEN = re.compile(r"^[\w.@+-]+\.([A-Za-z0-9]{1,6})$")


def activity_paths(call: ToolCall) -> tuple[str, ...]:
    """Paths a call works on: its file arguments, else obvious paths in a shell command."""
    if call.paths:
        return call.paths
    command = call.input.get("command")
    return command_paths(command) if isinstance(command, str) else ()


@lru_cache(maxsize=1024)
def command_paths(command: str, limit: int = 5) -> tuple[str, ...]:
    """Obvious file paths in a shell command: `/abs/x`, `./x`, `dir/file.py`, `file.py`."""
    found: list[str] = []
    for token in _SHELL_SPLIT.split(command):
        if not token or token.startswith("-") or "://" in token or "*" in token or "$" in token:
            continue
        token = token.split("::", 1)[0].rstrip(",:")
        is_path = token.startswith(("/", "./", "../")) and len(token) > 1
        if not is_path:
            match = _FILE_TOKEN.match(token.rsplit("/", 1)[-1]) if token else None
            is_path = match is not None and match.group(1).lower() in SOURCE_SUFFIXES
        if is_path and token not in found:
            found.append(token)
            if len(found) == limit:
                break
    return tuple(found)
