"""Tool events compressed by rule into one line each, with no model (specs/memory.md):

    Read      -> Read /src/auth.ts (245 lines)
    Edit      -> Edited /src/auth.ts: old_string → new_string
    Write     -> Created /src/auth.ts (120 lines)
    Bash      -> Ran `npm test` → exit 0   |   Ran `npm test` → exit 1: error summary
    Grep      -> Searched 'pattern' in /src → 5 matches
    WebSearch -> Searched: query text
    WebFetch  -> Fetched example.com

opencode's tools (`bash`, `read`, `edit`, `write`, `grep`, ... with `filePath`, `oldString`,
`newString`) are read as the Claude Code tools they match, so an opencode session's lines (and the
rule digest made of them) say the same. Low-value tools are skipped; any other tool gets
`<tool>: <its main input>`. Every piece is
redacted before it is cut (specs/redaction.md): a secret cut in half no longer has the shape
that finds it, so memory text derives from redacted text only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from ..core.events import ToolCall
from ..text.redact import redact

SKIPPED_TOOLS = frozenset(
    {
        "Glob", "LSP", "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet",
        "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "NotebookEdit", "Skill",
    }
)  # fmt: skip
"""Low-value tools: nothing is kept of them."""

OPENCODE_TOOLS = {
    "bash": "Bash", "read": "Read", "edit": "Edit", "multiedit": "MultiEdit", "write": "Write",
    "grep": "Grep", "glob": "Glob", "list": "Glob", "webfetch": "WebFetch",
    "websearch": "WebSearch", "todowrite": "TodoWrite", "todoread": "TodoWrite", "task": "Task",
    "skill": "Skill", "lsp": "LSP", "question": "AskUserQuestion",
}  # fmt: skip
"""opencode's tool names -> the Claude Code tool each matches."""
OPENCODE_KEYS = {"filePath": "file_path", "oldString": "old_string", "newString": "new_string"}
"""opencode's input keys -> Claude Code's."""

#: Longest piece of one input (a command, an edit side, a pattern) kept in the line.
PIECE = 80
#: Longest error summary kept after a failed command.
ERROR_SUMMARY = 160

_SPACE = re.compile(r"\s+")
_EXIT = re.compile(r"\bexit(?:ed with)?(?: code| status)?[ :]*(-?\d+)", re.IGNORECASE)
_BANNER = re.compile(r"^[=_-]{4,}")
"""A test runner's section banner (`===== FAILURES =====`): it names no error itself."""
_TRACEBACK = "Traceback (most recent call last):"
"""A Python traceback's first line names no error: its last line does."""
_ERROR_LINE = re.compile(r"error|fail|exception|traceback|denied|not found|fatal", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Compressed:
    """One tool event as the pending-events table keeps it."""

    tool_name: str
    line: str
    files: tuple[str, ...] = ()


def compress(call: ToolCall, root: str = "") -> Compressed | None:
    """The one-line form of a tool call, or None for a skipped tool. With the project's `root`,
    paths inside it are written relative to it in the line (`src/auth.ts`); `files` keep them
    whole, as memory search by file expects."""
    call = as_claude_code(call)
    if not call.tool or call.tool in SKIPPED_TOOLS:
        return None
    rule = _RULES.get(call.tool, _other)
    said = call
    if root:  # before the rules clip anything
        said = replace(call, input={k: project_relative(v, root) if isinstance(v, str) else v
                                    for k, v in call.input.items()})  # fmt: skip
    line = rule(said)
    if not call.ok and call.tool != "Bash":
        line += f" → failed: {error_summary(call.error or call.output)}"
    return Compressed(call.tool, project_relative(line, root), _files(call))


def as_claude_code(call: ToolCall) -> ToolCall:
    """An opencode tool call as the Claude Code tool call it matches (others as they are)."""
    tool = OPENCODE_TOOLS.get(call.tool)
    if tool is None:
        return call
    edits = call.input.get("edits")
    keys = {OPENCODE_KEYS.get(k, k): v for k, v in call.input.items()}
    if isinstance(edits, list):
        keys["edits"] = [
            {OPENCODE_KEYS.get(k, k): v for k, v in e.items()} if isinstance(e, Mapping) else e
            for e in edits
        ]
    return replace(call, tool=tool, input=keys)


def project_relative(text: str, root: str) -> str:
    """`text` with the absolute paths under `root` made relative to it (`root` itself: `.`)."""
    root = root.rstrip("/")
    if not root or not os.path.isabs(root):
        return text
    text = text.replace(root + "/", "")
    return re.sub(re.escape(root) + r"(?![\w.-])", ".", text)


def error_summary(text: str) -> str:
    """The line of an error output that says most: the first naming an error, else the last."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not _EXIT.fullmatch(line) and not _BANNER.match(line)]
    if not lines:
        return "no output"
    named = [line for line in lines if _ERROR_LINE.search(line) and line != _TRACEBACK]
    return piece(named[0] if named else lines[-1], ERROR_SUMMARY)


def piece(text: Any, limit: int = PIECE) -> str:
    """One line of at most `limit` characters (redacted, spaces collapsed, cut with an ellipsis)."""
    flat = _SPACE.sub(" ", redact(str(text))).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# -- one rule per tool ----------------------------------------------------------------------------


def _read(call: ToolCall) -> str:
    if not call.ok:
        return f"Read {_path(call)}"
    lines = _number(_result_file(call), "numLines")
    if lines is None:
        lines = len(call.output.splitlines()) if call.output else 0
    return f"Read {_path(call)} ({lines} lines)"


def _edit(call: ToolCall) -> str:
    edits = call.input.get("edits")
    if call.tool == "MultiEdit" and isinstance(edits, list) and edits:
        first = edits[0] if isinstance(edits[0], Mapping) else {}
        more = f" (+{len(edits) - 1} more)" if len(edits) > 1 else ""
        old, new = first.get("old_string", ""), first.get("new_string", "")
        return f"Edited {_path(call)}: {piece(old)} → {piece(new)}{more}"
    old, new = call.input.get("old_string", ""), call.input.get("new_string", "")
    return f"Edited {_path(call)}: {piece(old)} → {piece(new)}"


def _write(call: ToolCall) -> str:
    content = call.input.get("content", "")
    lines = len(content.splitlines()) if isinstance(content, str) else 0
    verb = "Updated" if (call.result or {}).get("type") == "update" else "Created"
    return f"{verb} {_path(call)} ({lines} lines)"


def _bash(call: ToolCall) -> str:
    command = f"Ran `{piece(call.input.get('command', ''))}`"
    if call.ok:
        return f"{command} → exit 0"
    text = call.error or call.output
    found = _EXIT.search(text)
    code = found.group(1) if found else "1"
    if text.startswith("[interrupted]"):
        return f"{command} → interrupted"
    return f"{command} → exit {code}: {error_summary(text)}"


def _grep(call: ToolCall) -> str:
    pattern = piece(call.input.get("pattern", ""))
    where = call.input.get("path") or call.input.get("glob")
    place = f" in {piece(where)}" if where else ""
    result = call.result or {}
    count = next(
        (n for n in (_number(result, k) for k in ("numMatches", "numLines", "numFiles")) if n),
        None,
    )
    if count is None:
        count = len([line for line in call.output.splitlines() if line.strip()])
    return f"Searched '{pattern}'{place} → {count} matches"


def _web_search(call: ToolCall) -> str:
    return f"Searched: {piece(call.input.get('query', ''), 2 * PIECE)}"


def _web_fetch(call: ToolCall) -> str:
    url = str(call.input.get("url", ""))
    host = urlsplit(url).hostname or piece(url)
    return f"Fetched {host}"


def _other(call: ToolCall) -> str:
    main = next((v for v in call.input.values() if isinstance(v, str) and v.strip()), "")
    return f"{call.tool}: {piece(main)}" if main else call.tool


_RULES: dict[str, Callable[[ToolCall], str]] = {
    "Read": _read,
    "Edit": _edit,
    "MultiEdit": _edit,
    "Write": _write,
    "Bash": _bash,
    "Grep": _grep,
    "WebSearch": _web_search,
    "WebFetch": _web_fetch,
}


def _path(call: ToolCall) -> str:
    return str(call.input.get("file_path") or call.input.get("path") or "?")


def _files(call: ToolCall) -> tuple[str, ...]:
    if call.tool in ("Read", "Edit", "MultiEdit", "Write"):
        path = call.input.get("file_path") or call.input.get("path")
        return (path,) if isinstance(path, str) and path else ()
    if call.tool == "Grep":
        path = call.input.get("path")
        return (path,) if isinstance(path, str) and path else ()
    return ()


def _result_file(call: ToolCall) -> Mapping[str, Any]:
    found = (call.result or {}).get("file")
    return found if isinstance(found, Mapping) else {}


def _number(data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
