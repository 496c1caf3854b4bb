"""Memories by rule, with no model (specs/memory.md): one line per command with its latest state
(``pytest tests/test_invoice.py -q`: failed 12× (AssertionError: …), passes since`) and one line
for the files the session created and changed, all from the session's compressed events.

A session's later batch restates the whole session so far: its memories supersede the earlier
batch's rule memories of that session (carried over by reading them back), and a command's line
supersedes the project's older lines of the same command, so what is injected never says both
"fails" and "passes" of one command.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from ..store.memory_records import Memory, PendingEvent
from ._memories import Extracted

_CHANGED = re.compile(r"^(Created|Updated|Edited) (.+?)(?: \(\d+ lines\)|: .*)?$")
_RAN = re.compile(r"^Ran `(.+)` → (exit (-?\d+)(?:: (.*))?|interrupted)$")
_COMMAND_TITLE = re.compile(r"^`(.+)`$")
_STATE = re.compile(
    r"^(?:passes(?: \((?P<passes>\d+)×\))?"
    r"|fails \((?P<fails>\d+)×\): (?P<error>.*)"
    r"|failed (?P<failed>\d+)× \((?P<fixed>.*)\), passes since"
    r"|passed (?P<passed>\d+)×, fails since \((?P<since>\d+)×\): (?P<again>.*))$"
)
_FILE = re.compile(r"^(?P<path>.+) \((?P<how>created|edited)(?: (?P<times>\d+)×)?\)$")
FILES_TITLE = "Files changed"
MOST_FILES = 12
"""Files named in the files line; more are counted."""
NOT_RUN = ("The user doesn't want to", "<tool_use_error>")
"""Error lines that say the command never ran (the user declined it, the host blocked it)."""
MOST_COMMANDS = 6
"""Command lines one session keeps: failing and fixed ones first, then the most run."""


@dataclass(frozen=True, slots=True)
class CommandState:
    """What is known of one command in a session: its runs and how the latest went."""

    command: str
    fails: int = 0
    passes: int = 0
    last_ok: bool = True
    streak: int = 0
    """Runs since its state last changed."""
    error: str = ""
    """The latest failure's error line."""

    def ran(self, ok: bool, error: str) -> CommandState:
        same = self.last_ok == ok and (self.fails + self.passes) > 0
        return replace(
            self,
            fails=self.fails + (not ok),
            passes=self.passes + ok,
            last_ok=ok,
            streak=self.streak + 1 if same else 1,
            error=self.error if ok else (error or "no output"),
        )

    def line(self) -> str:
        """The state as the memory's content says it."""
        if not self.fails:
            return "passes" + (f" ({self.passes}×)" if self.passes > 1 else "")
        if not self.passes:
            return f"fails ({self.fails}×): {self.error}"
        if self.last_ok:
            return f"failed {self.fails}× ({self.error}), passes since"
        return f"passed {self.passes}×, fails since ({self.streak}×): {self.error}"

    @classmethod
    def read(cls, command: str, text: str) -> CommandState | None:
        """The state a memory's content says (None: not a rule line)."""
        found = _STATE.match(text)
        if found is None:
            return None
        g = found.groupdict()
        if g["fails"]:
            n = int(g["fails"])
            return cls(command, n, 0, False, n, g["error"])
        if g["failed"]:
            return cls(command, int(g["failed"]), 1, True, 1, g["fixed"])
        if g["passed"]:
            since = int(g["since"])
            return cls(command, since, int(g["passed"]), False, since, g["again"])
        n = int(g["passes"] or 1)
        return cls(command, 0, n, True, n)


def rule_memories(
    batch: Sequence[PendingEvent], earlier: Sequence[Memory] = ()
) -> tuple[list[Extracted], list[int]]:
    """The session's memories by rule after this batch, and the ids of the `earlier` rule
    memories of the session they supersede."""
    if not batch:
        return [], []
    commands, files, superseded = _carried(earlier)
    known = [p for m in earlier if m.title == FILES_TITLE for p in m.files]
    whole = {r: next((p for p in known if p == r or p.endswith("/" + r)), r) for r in files}
    for event in batch:
        changed = _CHANGED.match(event.compressed)
        if changed:
            verb, path = changed.group(1), changed.group(2)
            created, edits = files.get(path, (False, 0))
            files[path] = (created or verb == "Created", edits + (verb != "Created"))
            whole[path] = event.files[0] if event.files else path
            continue
        ran = _RAN.match(event.compressed)
        if ran and _named(ran.group(1), ran.group(4) or ""):
            ok = ran.group(3) == "0"
            state = commands.get(ran.group(1)) or CommandState(ran.group(1))
            commands[ran.group(1)] = state.ran(ok, ran.group(4) or ran.group(2))
    when = batch[-1].timestamp
    found = [Extracted(f"`{s.command}`", s.line(), when) for s in _kept(commands.values())]
    if files:
        found.append(_files_memory(files, when, whole))
    return found, superseded


def _named(command: str, error: str) -> bool:
    """Whether a run tells of the command it names: not one cut short in the line (two commands
    that begin alike would read as one), not one that never ran."""
    return not command.endswith("…") and not error.startswith(NOT_RUN)


def command_of(memory: Memory) -> str:
    """The command a rule memory is about ('' for other memories)."""
    found = _COMMAND_TITLE.match(memory.title)
    return found.group(1) if found and CommandState.read("", memory.content) else ""


def _carried(
    earlier: Sequence[Memory],
) -> tuple[dict[str, CommandState], dict[str, tuple[bool, int]], list[int]]:
    commands: dict[str, CommandState] = {}
    files: dict[str, tuple[bool, int]] = {}
    superseded: list[int] = []
    for memory in earlier:
        command = command_of(memory)
        if command:
            state = CommandState.read(command, memory.content)
            assert state is not None
            commands[command] = state
            superseded.append(memory.id)
        elif memory.title == FILES_TITLE:
            for part in memory.content.removesuffix(".").split(", "):
                item = _FILE.match(part)
                if item:
                    edits = int(item["times"] or 1) if item["how"] == "edited" else 0
                    files[item["path"]] = (item["how"] == "created", edits)
            superseded.append(memory.id)
    return commands, files, superseded


def _kept(states: Iterable[CommandState]) -> list[CommandState]:
    ranked = sorted(states, key=lambda s: (s.last_ok, not s.fails, -(s.fails + s.passes)))
    return ranked[:MOST_COMMANDS]


def _files_memory(
    files: dict[str, tuple[bool, int]], when: datetime, whole: dict[str, str]
) -> Extracted:
    """The files line; the memory's files are the paths whole (as search by file expects)."""
    parts = []
    for path, (created, edits) in list(files.items())[:MOST_FILES]:
        how = "created" if created else "edited" + (f" {edits}×" if edits > 1 else "")
        parts.append(f"{path} ({how})")
    more = f", and {len(files) - MOST_FILES} more" if len(files) > MOST_FILES else ""
    paths = tuple(dict.fromkeys(whole.get(p, p) for p in files))
    return Extracted(FILES_TITLE, ", ".join(parts) + more + ".", when, paths)
