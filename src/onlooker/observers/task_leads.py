"""Leads for Drift: files the task's own searches and failures pointed the agent to.

A grep for a word of the prompt lists the files a rename must touch; a failing test run or a
traceback names the files to fix. Work on what such a call named is the task followed, not a
drift from it, wherever those files are (specs/observers.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ..core.events import ToolCall
from .call_paths import SOURCE_SUFFIXES
from .task_scope import GENERIC_WORDS, TaskScope, prompt_stems

SEARCH_TOOLS = frozenset({"Grep", "Glob"})
SEARCH_COMMANDS = frozenset({"grep", "rg", "ag", "ack", "git", "find", "fd"})
"""Shell commands whose arguments are a search: `grep -rn get_customer src`, `git grep x`."""
MAX_LEADS = 200
"""Paths taken from one call's output at most."""
_SPLIT = re.compile(r"[\s\"'`()\[\]{},;=<>|]+")
_PATH = re.compile(r"^(?:\.{0,2}/)?[\w@+-][\w.@+/-]*\.([A-Za-z0-9]{1,6})$")


def task_leads(calls: Iterable[ToolCall], ground: TaskScope) -> dict[str, int]:
    """Paths named by the output of a call that leads (resolved), with that call's index."""
    found: dict[str, int] = {}
    for call in calls:
        if not call.output or not leads(call, ground):
            continue
        for raw in output_paths(call.output):
            path = ground.resolve(raw)
            if path is not None and path not in found:
                found[path] = call.index
    return found


def leads(call: ToolCall, ground: TaskScope) -> bool:
    """Does the call's output point where the task goes?

    A search whose pattern shares a telling word with the user's prompts, or a failure of a call
    that names no file or one of the task's (a whole test run, a linter, the task's command).
    """
    words = pattern_words(call)
    if words is not None:
        return not words.isdisjoint(ground.words)
    return not call.ok and not ground.verdict(call)


def pattern_words(call: ToolCall) -> frozenset[str] | None:
    """The telling words a search looks for (None: the call is no search)."""
    pattern = search_pattern(call)
    if pattern is None:
        return None
    return frozenset(w for w in prompt_stems(pattern) if len(w) >= 4 and w not in GENERIC_WORDS)


def search_pattern(call: ToolCall) -> str | None:
    """What a search looks for (None: the call is no search)."""
    if call.tool in SEARCH_TOOLS:
        pattern = call.input.get("pattern")
        return pattern if isinstance(pattern, str) else ""
    command = call.input.get("command")
    if call.tool == "Bash" and isinstance(command, str):
        words = command.split(None, 1)
        if words and words[0] in SEARCH_COMMANDS:
            return words[1] if len(words) > 1 else ""
    return None


@lru_cache(maxsize=512)
def output_paths(output: str) -> tuple[str, ...]:
    """File paths named in a tool's output: `src/a.py:10: …`, `FAILED tests/t.py::test`,
    `File "src/a.py", line 3`, a listing of absolute paths."""
    found: list[str] = []
    seen: set[str] = set()
    for token in _SPLIT.split(output):
        token = token.split("::", 1)[0]
        token = token.split(":", 1)[0] if ":" in token else token
        match = _PATH.match(token)
        if match is None or match.group(1).lower() not in SOURCE_SUFFIXES or token in seen:
            continue
        seen.add(token)
        found.append(token)
        if len(found) == MAX_LEADS:
            break
    return tuple(found)
