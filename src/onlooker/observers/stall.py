"""Stall: the agent going round without effect, judged from calls together with their results.

The same call with the same result again and again, reads and writes of one file in turn, edits
that undo each other. A changing result is progress; a call the host cancelled is passed over.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, ClassVar

from ..core.assessment import Assessment, Finding
from ..core.events import ToolCall, UserPrompt
from ..core.observer import ObserverContext
from ..core.triggers import Trigger
from .episodes import (
    WRITE_TOOLS,
    Escalation,
    Report,
    assessment_of,
    call_key,
    cite,
    describe,
    episode,
    essential_input,
    is_cancelled,
    require_counts,
    require_order,
)

READ_TOOLS = frozenset({"Read", "NotebookRead"})
POLLING_TOOLS = frozenset({"BashOutput", "TaskOutput", "AgentOutputTool", "Monitor"})
"""Tools whose whole purpose is to check on something running."""

_POLLING_COMMAND = re.compile(r"\b(?:sleep|wait|watch|until)\b|--watch\b|\btail\s+-\w*f")

#: Result noise that is not progress: times, durations, temp paths, pids, addresses. Counts stay.
_NOISE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"…\[\d+ characters clipped\]…"), "…[clipped]…"),
    (
        re.compile(
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2}|\b)"
        ),
        "<time>",
    ),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<time>"),
    (
        re.compile(
            r"\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?)\b"
        ),
        "<duration>",
    ),
    (re.compile(r"(?:/private)?/(?:tmp|var/folders)/[^\s'\":,)]+"), "<tmp>"),
    (re.compile(r"\btmp[\w-]{6,}"), "<tmp>"),
    (re.compile(r"\b(pid|PID|process)([\s:=#]+)\d+"), r"\1\2<pid>"),
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "<addr>"),
)


@dataclass(frozen=True, slots=True)
class StallObserver:
    """Warn when the agent repeats itself without effect; escalate while it goes on."""

    inline: ClassVar[bool] = True
    """Bounded work over the session: runs in the hook's own thread (core/engine.py)."""
    event_types: ClassVar[tuple[type[ToolCall], ...]] = (ToolCall,)
    """`should_run` says no on any other event: the engine does not ask (core/engine.py)."""

    window: int = 20
    """Recent tool calls examined."""
    repeat_warn: int = 4
    """The same call with the same result this many times: medium."""
    repeat_escalate: int = 6
    """… this many times: high; then again every `repeat_every` more."""
    repeat_every: int = 5
    polling_factor: int = 3
    """Polling calls (sleep, wait, watch, BashOutput) need this many times the repeats."""
    thrash_warn: int = 3
    """Read-then-write cycles on one file: medium."""
    thrash_escalate: int = 5
    """… high."""
    undo_warn: int = 2
    """Edits on one file that restore an earlier state: the first is low, this many medium."""
    undo_escalate: int = 3
    """… high."""
    trigger: Trigger = field(default_factory=lambda: Trigger(every_n_calls=1))

    def __post_init__(self) -> None:
        require_counts(self)
        require_order(self, ("repeat_warn", "repeat_escalate"), ("thrash_warn", "thrash_escalate"))
        require_order(self, ("undo_warn", "undo_escalate"))
        if self.undo_warn < 2:
            raise ValueError(
                f"undo_warn must be at least 2 (the first undo is low), got {self.undo_warn}"
            )

    @property
    def name(self) -> str:
        return "Stall"

    def should_run(self, ctx: ObserverContext) -> bool:
        return isinstance(ctx.event, ToolCall)

    def observe(self, ctx: ObserverContext) -> Assessment | None:
        calls = ctx.recent_tool_calls(self.window)
        if not calls:
            return None
        repeats = self._repeats(ctx, calls)
        if calls[-1].tool not in WRITE_TOOLS:
            return None if repeats is None else assessment_of(self.name, (repeats,))
        # Going back and forth on a file at the user's word is not a stall: thrashing and undoing
        # are judged on the calls since the user last spoke.
        prompt = ctx.session[UserPrompt].latest()
        turn = calls if prompt is None else [c for c in calls if c.seq > prompt.seq]
        return assessment_of(self.name, (repeats, self._thrash(ctx, turn), self._undo(ctx, turn)))

    # -- the same call, the same result -------------------------------------------------------

    def _repeats(self, ctx: ObserverContext, calls: Sequence[ToolCall]) -> Report | None:
        latest = calls[-1]
        if is_cancelled(latest):
            return None
        essential = essential_input(latest.input)
        # A cheap look at one argument first; building the essential input of every call is not.
        probe = next(iter(essential), None)
        value = essential.get(probe) if probe is not None else None
        tool = latest.tool
        alike = [
            c for c in calls if c.tool == tool and (probe is None or c.input.get(probe) == value)
        ]
        if len(alike) < 2:  # most calls: none before it like it (the same calls are among these)
            return None
        same = [c for c in alike if essential_input(c.input) == essential and not is_cancelled(c)]
        if len(same) < 2:
            return None
        run = _same_result_run(same, calls)
        polling = is_polling(latest)
        escalation = Escalation(
            ((self.repeat_warn, "medium"), (self.repeat_escalate, "high")), self.repeat_every
        )
        if polling:
            escalation = escalation.scaled(self.polling_factor)
        if len(run) < escalation.steps[0][0] and not _reported_lately(ctx, run[0].index):
            return None
        indexes = [c.index for c in run]
        current = episode(ctx, f"repeat:{call_key(latest)}", indexes)
        level = escalation.due(current.count, current.reported)
        if level is None:
            return None
        what = describe(latest)
        times = current.count
        cited = cite(indexes, total=times)
        if polling:
            summary = "A polled status is not changing."
            content = f"{what} returned the same status {times} times ({cited})."
            suggestion = (
                f"Polling has returned the same status {times} times; "
                "the awaited change may not be coming."
            )
        elif not latest.ok:
            summary = "The same call keeps failing the same way."
            content = f"{what} failed with the same error {times} times ({cited})."
            suggestion = (
                f"The same call has failed {times} times with the same error; "
                "a different approach may be needed."
            )
        else:
            summary = "The same call keeps giving the same result."
            content = f"{what} returned the same result {times} times ({cited})."
            suggestion = (
                f"The same call has returned the same result {times} times; "
                "repeating it is unlikely to change the outcome."
            )
        finding = Finding(
            content=content,
            category="repeated call",
            evidence=cited,
            severity=level,
            source_ref=f"tool call {latest.index}",
            metadata=current.metadata(latest.index),
        )
        return Report(finding, summary, suggestion)

    # -- read, write, read, write ----------------------------------------------------------------

    def _thrash(self, ctx: ObserverContext, calls: Sequence[ToolCall]) -> Report | None:
        if not calls:
            return None
        latest = calls[-1]
        if latest.tool not in WRITE_TOOLS or not latest.ok or not latest.paths:
            return None
        path = latest.paths[0]
        touching = [
            c
            for c in calls
            if c.ok and (c.tool in READ_TOOLS or c.tool in WRITE_TOOLS) and c.paths[:1] == (path,)
        ]
        if len(touching) < 2 or touching[-2].tool not in READ_TOOLS:
            return None
        # Thrashing is reading the same view of the file again and again between writes; reading
        # one part after another to edit each is working through it.
        view = touching[-2].input
        ops = [
            (c.index, c.tool in READ_TOOLS)
            for c in touching
            if c.tool in WRITE_TOOLS or c.input == view
        ]
        cycles = [ops[i][0] for i in range(1, len(ops)) if ops[i - 1][1] and not ops[i][1]]
        if len(cycles) < self.thrash_warn and not _reported_lately(ctx, cycles[0]):
            return None
        escalation = Escalation(
            ((self.thrash_warn, "medium"), (self.thrash_escalate, "high")), self.thrash_escalate
        )
        current = episode(ctx, f"thrash:{path}", cycles)
        level = escalation.due(current.count, current.reported)
        if level is None:
            return None
        first = next(i for i, (index, _) in enumerate(ops) if index >= cycles[0]) - 1
        indexes = [index for index, _ in ops[max(first, 0) :]]
        name = PurePath(path).name
        cited = cite(indexes, 12)
        finding = Finding(
            content=f"{name} was read and rewritten in turn {current.count} times ({cited}).",
            category="thrashing",
            evidence=cited,
            severity=level,
            source_type="file",
            source_ref=path,
            metadata=current.metadata(latest.index),
        )
        return Report(
            finding,
            f"{name} keeps being read and rewritten in turn.",
            f"{current.count} read-then-write rounds on {name} have not settled it; "
            "the change it needs may depend on something outside this file.",
        )

    # -- edits that undo each other ----------------------------------------------------------

    def _undo(self, ctx: ObserverContext, calls: Sequence[ToolCall]) -> Report | None:
        if not calls:
            return None
        latest = calls[-1]
        if latest.tool not in ("Write", "Edit", "MultiEdit") or not latest.ok or not latest.paths:
            return None
        path = latest.paths[0]
        edits = [c for c in calls if c.ok and c.tool in WRITE_TOOLS and c.paths[:1] == (path,)]
        if restored(latest, edits[:-1]) is None:
            return None
        pairs: list[tuple[int, int]] = []
        for i, edit in enumerate(edits):
            earlier = restored(edit, edits[:i])
            if earlier is not None:
                pairs.append((earlier.index, edit.index))
        escalation = Escalation(
            ((1, "low"), (self.undo_warn, "medium"), (self.undo_escalate, "high")), 2
        )
        current = episode(ctx, f"undo:{path}", [undoing for _, undoing in pairs])
        level = escalation.due(current.count, current.reported)
        if level is None:
            return None
        name = PurePath(path).name
        told = "; ".join(f"call {b} undid call {a}" for a, b in pairs[-4:])
        finding = Finding(
            content=f"Edits to {name} undo earlier edits ({told}).",
            category="undone edit",
            evidence=cite(sorted({i for pair in pairs for i in pair}), 12),
            severity=level,
            source_type="file",
            source_ref=path,
            metadata=current.metadata(latest.index),
        )
        times = "once" if current.count == 1 else f"{current.count} times"
        return Report(
            finding,
            f"Edits to {name} are going back and forth.",
            f"{name} has returned to an earlier state {times}; the edits in between did not hold.",
        )


def normalized_result(call: ToolCall) -> str:
    """The result text without noise that is not progress (times, durations, temp paths, pids)."""
    text = call.output or call.error or ""
    for pattern, replacement in _NOISE:
        text = pattern.sub(replacement, text)
    return text


def is_polling(call: ToolCall) -> bool:
    """A call that checks on something running: sleep/wait/watch commands, background output."""
    if call.tool in POLLING_TOOLS:
        return True
    command = call.input.get("command")
    return isinstance(command, str) and _POLLING_COMMAND.search(command) is not None


def restored(call: ToolCall, earlier: Sequence[ToolCall]) -> ToolCall | None:
    """The earlier edit of the same file that `call` undoes, if any (newest first)."""
    if call.tool == "Write":
        content = call.input.get("content")
        if not isinstance(content, str):
            return None
        for i in range(len(earlier) - 1, -1, -1):
            other = earlier[i]
            if other.tool == "Write" and other.input.get("content") == content:
                # Back to the content of `other`, undoing what came between (if anything did).
                return earlier[i + 1] if i + 1 < len(earlier) else None
        return None
    mine = _replacements(call)
    if not mine:
        return None
    wanted = {(new, old) for old, new in mine}
    for other in reversed(earlier):
        if wanted.intersection(_replacements(other)):
            return other
    return None


def _replacements(call: ToolCall) -> list[tuple[str, str]]:
    if call.tool == "Edit":
        edits: Any = [call.input]
    elif call.tool == "MultiEdit":
        edits = call.input.get("edits")
    else:
        return []
    found = []
    for edit in edits if isinstance(edits, list) else ():
        if isinstance(edit, dict):
            old, new = edit.get("old_string"), edit.get("new_string")
            if isinstance(old, str) and isinstance(new, str) and old != new:
                found.append((old, new))
    return found


def _same_result_run(same: Sequence[ToolCall], calls: Sequence[ToolCall]) -> list[ToolCall]:
    """The newest calls of `same` (oldest first) whose results equal the latest one's.

    A success that follows an edit is a check that the edit holds, not a repeat: for successful
    results the run stops at a file edit between two of them.
    """
    latest = same[-1]
    edits = [c.index for c in calls if c.ok and c.tool in WRITE_TOOLS] if latest.ok else []
    outcome: str | None = None
    run = [latest]
    for call in reversed(same[:-1]):
        if call.ok != latest.ok:
            break
        if edits and any(call.index < edit < run[-1].index for edit in edits):
            break
        if call.output != latest.output or call.error != latest.error:
            if outcome is None:
                outcome = normalized_result(latest)
            if normalized_result(call) != outcome:
                break
        run.append(call)
    run.reverse()
    return run


def _reported_lately(ctx: ObserverContext, since_index: int) -> bool:
    """Did this observer report anything at or after tool call `since_index`?"""
    last = ctx.last_assessment
    return last is not None and last.call_index >= since_index
