"""Episodes: a pattern that goes on over several tool calls, and what was already said about it.

A finding's metadata (pattern key, count, tool-call index) tells whether a new report would only
repeat it; and what the rule observers share about calls (the same call, changes, cancelled ones).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.assessment import Assessment, Finding, Severity, severity_rank
from ..core.events import ToolCall
from ..core.observer import ObserverContext

WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
"""Tools that change a file."""
COSMETIC_KEYS = frozenset({"description"})
"""Input keys that do not change what a call does (Claude Code's Bash `description`)."""
SIBLING_ERRORED = "Sibling tool call errored"
"""Claude Code's result for a parallel call it cancelled because another call of the same
message failed (`<tool_use_error>Sibling tool call errored</tool_use_error>`)."""


def is_cancelled(call: ToolCall) -> bool:
    """A call the host cancelled before it ran, because a parallel sibling failed.

    It is neither the agent's failure nor a result: observers pass over it.
    """
    if call.ok:
        return False
    text = call.error or call.output or ""
    return SIBLING_ERRORED in text[:120]


@dataclass(frozen=True, slots=True)
class Escalation:
    """Counts at which a pattern is reported, each with its severity; past the last, every `every`.

    `Escalation(((4, "medium"), (6, "high")), every=5)` reports at 4 (medium), at 6 (high), then
    at 11, 16 … (high). A count between steps says nothing new and is not reported.
    """

    steps: tuple[tuple[int, Severity], ...]
    every: int

    def __post_init__(self) -> None:
        counts = [count for count, _ in self.steps]
        if not counts or counts != sorted(set(counts)) or counts[0] < 1 or self.every < 1:
            raise ValueError(f"escalation steps must be increasing counts from 1: {self.steps}")

    def scaled(self, factor: int) -> Escalation:
        """The same steps, `factor` times further apart (for patterns that are often legitimate)."""
        return Escalation(
            tuple((count * factor, level) for count, level in self.steps), self.every * factor
        )

    def level(self, count: int) -> Severity | None:
        found: Severity | None = None
        for at, level in self.steps:
            if count >= at:
                found = level
        return found

    def due(self, count: int, reported: int | None) -> Severity | None:
        """Severity to report at `count`; None when `reported` (the count last told) covers it."""
        level = self.level(count)
        if level is None or reported is None:
            return level
        told = self.level(reported)
        if told is None or severity_rank(level) > severity_rank(told):
            return level
        if count >= self.steps[-1][0] and count - reported >= self.every:
            return level
        return None


def require_counts(config: Any) -> None:
    """Every whole-number setting of an observer must be at least 1; ValueError names the field."""
    for setting in dataclasses.fields(config):
        value = getattr(config, setting.name)
        if setting.type in ("int", int) and (type(value) is not int or value < 1):
            raise ValueError(f"{setting.name} must be a whole number of at least 1, got {value!r}")


def require_order(config: object, *pairs: tuple[str, str]) -> None:
    """Each pair of fields must increase: a warning comes before its escalation."""
    for low, high in pairs:
        if getattr(config, low) >= getattr(config, high):
            raise ValueError(
                f"{high} ({getattr(config, high)}) must be greater than {low} "
                f"({getattr(config, low)})"
            )


@dataclass(frozen=True, slots=True)
class Episode:
    """How far a pattern has gone: its count, and the count last reported to the agent (if any)."""

    key: str
    count: int
    reported: int | None = None

    def metadata(self, index: int) -> dict[str, object]:
        """What a finding carries so that the next run can continue this episode."""
        return {"episode": self.key, "count": self.count, "index": index}


def reported_finding(ctx: ObserverContext, key: str, since_index: int) -> Finding | None:
    """This observer's newest finding about `key`, made at or after tool call `since_index`."""
    for assessment in ctx.session[Assessment].newest_first():
        if assessment.observer_name != ctx.observer_name:
            continue
        if assessment.call_index < since_index:
            return None
        for finding in assessment.findings:
            if finding.metadata.get("episode") == key:
                return finding
    return None


def episode(ctx: ObserverContext, key: str, indexes: Sequence[int]) -> Episode:
    """The episode of `key` whose members in the window are the calls `indexes` (oldest first).

    A report made at one of these calls continues into this episode: its count goes on from the
    reported count, so an episode longer than the window keeps counting.
    """
    if not indexes:
        return Episode(key, 0)
    found = reported_finding(ctx, key, indexes[0])
    if found is None:
        return Episode(key, len(indexes))
    at = found.metadata.get("index")
    told = found.metadata.get("count")
    if not isinstance(at, int) or not isinstance(told, int) or at not in indexes:
        return Episode(key, len(indexes))
    return Episode(key, told + sum(1 for i in indexes if i > at), told)


def essential_input(arguments: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments without the cosmetic ones."""
    if COSMETIC_KEYS.isdisjoint(arguments):
        return arguments
    return {k: v for k, v in arguments.items() if k not in COSMETIC_KEYS}


def call_key(call: ToolCall) -> str:
    """Tool and canonical JSON of its essential input, hashed: equal for the same call."""
    text = json.dumps(essential_input(call.input), sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.blake2b(f"{call.tool}\x00{text}".encode(), digest_size=8).hexdigest()


def cite(indexes: Iterable[int], limit: int = 8, total: int = 0) -> str:
    """`calls 12, 14, 17`; runs of five or more as `calls 3-9`; past `limit` parts, the newest.

    `total` counts calls no longer at hand too (an episode longer than the window).
    """
    items = sorted(set(indexes))
    if len(items) == 1:
        return f"call {items[0]}"
    runs: list[list[int]] = []
    for index in items:
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    parts: list[tuple[str, int]] = []
    for run in runs:
        if len(run) >= 5:
            parts.append((f"{run[0]}-{run[-1]}", len(run)))
        else:
            parts.extend((str(index), 1) for index in run)
    shown = parts[-limit:]
    earlier = sum(size for _, size in parts[: len(parts) - len(shown)])
    earlier += max(total - len(items), 0)
    text = ", ".join(label for label, _ in shown)
    return f"calls {text} and {earlier} earlier" if earlier else f"calls {text}"


def describe(call: ToolCall) -> str:
    """`Bash \\`pytest -q\\``: the tool and its main argument, short."""
    for key in ("command", "file_path", "notebook_path", "pattern", "query", "url", "path"):
        value = call.input.get(key)
        if isinstance(value, str) and value.strip():
            text = value.strip().splitlines()[0]
            if len(text) > 80:
                text = text[:77] + "..."
            return f"{call.tool} `{text}`"
    return call.tool


@dataclass(frozen=True, slots=True)
class Report:
    """One pattern found in a run: the finding, a one-line summary and a factual suggestion."""

    finding: Finding
    summary: str
    suggestion: str


def assessment_of(observer_name: str, reports: Iterable[Report | None]) -> Assessment | None:
    """One assessment from a run's reports, the most severe first; None when there are none."""
    found = [r for r in reports if r is not None]
    if not found:  # most runs: nothing found, nothing to sort
        return None
    found.sort(key=lambda r: -severity_rank(r.finding.severity))
    return Assessment(
        observer_name=observer_name,
        summary=found[0].summary,
        findings=tuple(r.finding for r in found),
        suggestions=tuple(dict.fromkeys(r.suggestion for r in found if r.suggestion)),
        severity=found[0].finding.severity,
    )
