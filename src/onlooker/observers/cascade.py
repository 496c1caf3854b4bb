"""Error Cascade: tool calls failing one after another, or the same error coming back in new forms.

Errors are compared normalised (one error about different files groups together); rejections,
cancelled calls, errors since fixed and falling failure counts: see specs/observers.md.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import ClassVar

from ..core.assessment import Assessment, Finding
from ..core.events import Event, ToolCall
from ..core.observer import ObserverContext
from ..core.triggers import Trigger
from .episodes import (
    Escalation,
    Report,
    assessment_of,
    call_key,
    cite,
    describe,
    episode,
    is_cancelled,
    require_counts,
    require_order,
)

REJECTIONS = (
    "The user doesn't want to",
    "User rejected tool use",
    "[Request interrupted by user",
)
"""Error texts that mean the user declined the call, not that it went wrong."""

_EXIT_LINE = re.compile(r"^(?:Error: )?Exit code \d+$")
_WRAPPER = re.compile(r"</?tool_use_error>")
_EXCEPTION = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")
ERROR_WORDS = (
    "error", "fatal", "failed", "failure", "not found", "no such", "denied", "cannot", "can't",
    "unable", "invalid", "refused",
)  # fmt: skip
"""Words that mark the line of an error message that says what went wrong."""
_ID = re.compile(r"\b(?:0x[0-9a-fA-F]+|[0-9a-fA-F]{7,}(?:-[0-9a-fA-F]{4,12}){0,4})\b")
_QUOTED = re.compile(r"'[^'\n]{1,200}'|\"[^\"\n]{1,200}\"|`[^`\n]{1,200}`")
_NUMBER = re.compile(r"\b\d+(?:[.:]\d+)*\b")
_FAILURE_COUNT = re.compile(r"\b(\d+) (?:failed|failures?|failing|errors?)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ErrorCascadeObserver:
    """Warn on consecutive failures and on recurring similar errors; escalate with the streak."""

    inline: ClassVar[bool] = True
    """Bounded work over the session: runs in the hook's own thread (core/engine.py)."""
    event_types: ClassVar[tuple[type[ToolCall], ...]] = (ToolCall,)
    """`should_run` says no on any other event: the engine does not ask (core/engine.py)."""

    window: int = 20
    """Recent tool calls examined for recurring errors."""
    streak_warn: int = 4
    """Consecutive failed calls (not all the same error): medium."""
    streak_escalate: int = 6
    """… high; then again every `repeat_every` more."""
    recurring_warn: int = 4
    """The same (normalised) error this many times within the window: medium."""
    recurring_escalate: int = 6
    """… high."""
    repeat_every: int = 5
    trigger: Trigger = field(default_factory=lambda: Trigger(every_n_calls=1))

    def __post_init__(self) -> None:
        require_counts(self)
        require_order(
            self, ("streak_warn", "streak_escalate"), ("recurring_warn", "recurring_escalate")
        )

    @property
    def name(self) -> str:
        return "Error Cascade"

    @staticmethod
    def runs_on(event: Event) -> bool:
        """What `should_run` says, which the event alone decides: the engine asks this before
        it makes a context (most calls do not fail; core/_due.py)."""
        return isinstance(event, ToolCall) and is_failure(event)

    def should_run(self, ctx: ObserverContext) -> bool:
        return isinstance(ctx.event, ToolCall) and is_failure(ctx.event)

    def observe(self, ctx: ObserverContext) -> Assessment | None:
        calls = ctx.recent_tool_calls(self.window)
        if not calls or not is_failure(calls[-1]):
            return None
        return assessment_of(self.name, (self._streak(ctx, calls), self._recurring(ctx, calls)))

    def _streak(self, ctx: ObserverContext, calls: Sequence[ToolCall]) -> Report | None:
        failing: list[ToolCall] = []
        passed_over = 0
        for call in reversed(calls):
            if is_cancelled(call):
                passed_over += 1
                continue
            if not is_failure(call):
                break
            failing.append(call)
        if len(failing) < 2:
            return None
        # One error over and over is a recurring error, reported as such; a streak is news when
        # the failures differ.
        if len({error_signature(call) for call in failing}) == 1:
            return None
        run = [call.index for call in reversed(failing)]
        escalation = Escalation(
            ((self.streak_warn, "medium"), (self.streak_escalate, "high")), self.repeat_every
        )
        current = episode(ctx, "streak", run)
        level = escalation.due(current.count, current.reported)
        if level is None:
            return None
        latest = calls[-1]
        n = current.count
        cited = cite(run, total=n)
        ran = " that ran" if passed_over else ""
        finding = Finding(
            content=(
                f"The last {n} tool calls{ran} failed ({cited}); "
                f"the latest, {describe(latest)}: {key_line(error_text(latest))}"
            ),
            category="consecutive failures",
            evidence=cited,
            severity=level,
            source_ref=f"tool call {latest.index}",
            metadata=current.metadata(latest.index),
        )
        return Report(
            finding,
            f"{n} tool calls in a row have failed.",
            f"{n} consecutive calls have failed; the approach may need reassessing "
            "before another attempt.",
        )

    def _recurring(self, ctx: ObserverContext, calls: Sequence[ToolCall]) -> Report | None:
        latest = calls[-1]
        signature = error_signature(latest)
        members = [c for c in calls if is_failure(c) and error_signature(c) == signature]
        if len(members) < 2:
            return None
        same = [c.index for c in outstanding(members, calls)]
        if len(same) < 2:
            return None
        escalation = Escalation(
            ((self.recurring_warn, "medium"), (self.recurring_escalate, "high")), self.repeat_every
        )
        key = hashlib.blake2b(signature.encode(), digest_size=8).hexdigest()
        current = episode(ctx, f"error:{key}", same)
        level = escalation.due(current.count, current.reported)
        if level is None:
            return None
        n = current.count
        text = error_text(latest)
        cited = cite(same, total=n)
        finding = Finding(
            content=f"The same error occurred {n} times ({cited}): {key_line(text)}",
            category="recurring error",
            evidence=cited,
            severity=level,
            source_ref=f"tool call {latest.index}",
            metadata={**current.metadata(latest.index), "signature": signature},
        )
        return Report(
            finding,
            f"The same error has come back {n} times.",
            f"The same error has recurred {n} times; the attempts so far have not reached its "
            "cause, and stepping back to reassess may serve better than another retry.",
        )


def outstanding(members: Sequence[ToolCall], calls: Sequence[ToolCall]) -> list[ToolCall]:
    """The occurrences of one error that still stand: those since the latest progress, less
    those the same call has succeeded after (fixed, as in test-first work)."""
    start = 0
    counts: dict[str, int] = {}
    for i, call in enumerate(members):
        count = failure_count(call)
        if count is None:
            continue
        key = call_key(call)
        before = counts.get(key)
        if before is not None and count < before:
            start = i
        counts[key] = count
    kept = members[start:]
    succeeded = {call_key(c): c.index for c in calls if c.ok}
    return [c for c in kept if succeeded.get(call_key(c), 0) < c.index]


def failure_count(call: ToolCall) -> int | None:
    """How many failures the call's own summary line reports (`2 failed, 1 error in 0.4s`,
    `Found 9 errors in 3 files`, `Tests: 3 failed`); None when it names no count."""
    text = error_text(call)
    for line in reversed(text[-2000:].splitlines()):
        found = _FAILURE_COUNT.findall(line)
        if found:
            return sum(int(n) for n in found)
    return None


def error_text(call: ToolCall) -> str:
    return call.error or call.output or ""


def is_failure(call: ToolCall) -> bool:
    """A failed call that is the agent's: not a user rejection, not a call cancelled because a
    parallel sibling failed, not a silent `exit 1` (no match)."""
    if call.ok or is_cancelled(call):
        return False
    text = error_text(call).strip()
    if text.startswith(REJECTIONS):
        return False
    return not (call.tool == "Bash" and text in ("Exit code 1", "Error: Exit code 1"))


def key_line(text: str, limit: int = 160) -> str:
    """The line that says what went wrong: the last exception line, else the first error line."""
    lines = [
        stripped
        for line in _WRAPPER.sub("", text).splitlines()
        if (stripped := line.strip()) and not _EXIT_LINE.match(stripped)
    ]
    if not lines:
        return text.strip()[:limit]
    chosen = next((line for line in reversed(lines) if _is_exception(line)), None)
    if chosen is None:
        chosen = next((line for line in lines if _says_error(line)), lines[0])
    return chosen if len(chosen) <= limit else chosen[: limit - 3] + "..."


def _is_exception(line: str) -> bool:
    return ("Error" in line or "Exception" in line) and _EXCEPTION.search(line) is not None


def _says_error(line: str) -> bool:
    lowered = line.lower()
    return any(word in lowered for word in ERROR_WORDS)


def error_signature(call: ToolCall) -> str:
    """The error with what varies between instances replaced: equal for errors of one kind.

    Hex and uuid ids, quoted names, paths (any word with a slash), then numbers (line:col too).
    """
    return _signature(call.tool, error_text(call))


@lru_cache(maxsize=64)
def _signature(tool: str, error: str) -> str:
    """`error_signature`, kept for the failures of a window: each run asks it of all of them."""
    text = _ID.sub(_id, key_line(error, 400))
    text = _QUOTED.sub("'<name>'", text)
    words = ("<path>" if "/" in word or "\\" in word else word for word in text.split())
    return f"{tool}: {_NUMBER.sub('<n>', ' '.join(words))}"


def _id(match: re.Match[str]) -> str:
    """Ids have digits; a word made of the letters a-f alone (`facade`) is left as it is."""
    token = match.group()
    return "<id>" if any(ch.isdigit() for ch in token) else token
