"""A session's report built from what happened in it, in order: events, then the assessments and
observer failures dispatched after each. Journals (store) and replays (transcripts) both feed it.

An assessment is delivered right after the event it follows, so its timeline entry names that
point (`after call 12 · Bash`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..core.assessment import Assessment, is_warning
from ..core.clock import parse_time
from ..core.engine import Dispatch
from ..core.events import SessionStarted, ToolCall, UserPrompt
from ..core.records import decode_record
from ..text.clipping import clip
from ..text.redact import redact
from .model import SessionReport, TimelineEntry

TEXT_LIMIT = 1500
"""Characters of an assessment, prompt or error kept in a timeline entry."""
ENTRY_LIMIT = 300
"""Timeline entries kept per session (the strip still shows every tool call)."""

_WANTED = frozenset(
    {"session_started", "user_prompt", "tool_call", "assessment", "observer_failure",
     "turn_ended", "session_ended", "compacting"}
)  # fmt: skip
_PREFIX = b'{"kind":"'


@dataclass(slots=True)
class SessionBuilder:
    """Accumulates one session's counts and, when `detailed`, its timeline."""

    session_id: str
    project: str
    detailed: bool = False
    agent: str = ""
    host: str = ""
    """The host adapter its start names ('' when unknown: older journals, plain loops)."""
    started: datetime | None = None
    ended: datetime | None = None
    tool_calls: int = 0
    failed_calls: int = 0
    assessments: int = 0
    warnings: int = 0
    observer_failures: int = 0
    tool_times: list[tuple[datetime, bool]] = field(default_factory=list)
    warning_times: list[datetime] = field(default_factory=list)
    entries: list[TimelineEntry] = field(default_factory=list)
    dropped: int = 0
    keep_assessments: bool = False
    """Keep the assessments themselves (`assessment_records`), for what is made of them later."""
    assessment_records: list[Assessment] = field(default_factory=list)
    named: bool = False
    """Whether `session_id` is the one the session's events carry (a journal's file name is a
    file-name-safe form of it)."""
    _after: str = "session start"

    def _seen(self, at: datetime) -> None:
        if self.started is None or at < self.started:
            self.started = at
        if self.ended is None or at > self.ended:
            self.ended = at

    def _room(self) -> bool:
        """Whether a timeline entry can be added (detailed, and under the limit)."""
        if not self.detailed:
            return False
        if len(self.entries) < ENTRY_LIMIT:
            return True
        self.dropped += 1
        return False

    def _add(self, entry: TimelineEntry) -> None:
        self.entries.append(entry)

    def event(self, kind: str, at: datetime, text: str = "") -> None:
        self._seen(at)
        if kind == "user_prompt":
            self._after = "prompt"
            if self._room():
                self._add(TimelineEntry(at, "prompt", "prompt", self.tool_calls, text=_clip(text)))
        elif kind != "session_started":
            self._after = kind.replace("_", " ")
            if self._room():
                self._add(TimelineEntry(at, "event", self._after, self.tool_calls))

    def tool(self, at: datetime, tool: str, ok: bool, error: str | None) -> None:
        self._seen(at)
        self.tool_calls += 1
        self.failed_calls += not ok
        self.tool_times.append((at, ok))
        self._after = f"call {self.tool_calls} · {tool}"
        if not ok and self._room():
            label = f"call {self.tool_calls} · {tool} failed"
            self._add(TimelineEntry(at, "tool", label, self.tool_calls, False, "", _clip(error)))

    def assessment(self, assessment: Assessment) -> None:
        at = assessment.timestamp
        self._seen(at)
        self.assessments += 1
        if self.keep_assessments:
            self.assessment_records.append(assessment)
        if is_warning(assessment.severity):
            self.warnings += 1
            self.warning_times.append(at)
        if not self._room():
            return
        label = f"{assessment.observer_name} · after {self._after}"
        self._add(
            TimelineEntry(
                at, "assessment", label, assessment.call_index, True, assessment.severity,
                _clip(assessment.render()),
            )
        )  # fmt: skip

    def failure(self, observer: str, at: datetime, error: str, call_index: int) -> None:
        self._seen(at)
        self.observer_failures += 1
        if not self._room():
            return
        label = f"{observer} failed · after {self._after}"
        self._add(TimelineEntry(at, "failure", label, call_index, False, "", _clip(error)))

    def report(self, observer: str, at: datetime, status: str, text: str, severity: str) -> None:
        """A reviewer run's report, delivered at `at` (or not yet delivered)."""
        if self._room():
            self._add(TimelineEntry(at, "report", f"{observer} · {status}", 0, True, severity,
                                _clip(text)))  # fmt: skip

    def dispatched(self, dispatch: Dispatch) -> None:
        """An event as dispatched (replay, a live host), then what observers made of it."""
        event = dispatch.event
        if isinstance(event, ToolCall):
            self.tool(event.at, event.tool, event.ok, event.error)
        else:
            if isinstance(event, SessionStarted):
                self.agent = self.agent or event.agent_name
            self.event(event.kind, event.at, event.text if isinstance(event, UserPrompt) else "")
        for assessment in dispatch.assessments:
            self.assessment(assessment)
        for failure in dispatch.failures:
            self.failure(failure.observer, failure.at, failure.error, failure.call_index)

    def build(self, findings: int = 0) -> SessionReport:
        entries = sorted(self.entries, key=lambda e: e.at) if self.detailed else []
        if self.dropped and entries:
            more = f"{self.dropped} more entries not shown"
            entries.append(TimelineEntry(entries[-1].at, "event", more))
        return SessionReport(
            session_id=self.session_id, project=self.project, started=self.started,
            ended=self.ended, agent=self.agent, tool_calls=self.tool_calls,
            failed_calls=self.failed_calls, assessments=self.assessments, warnings=self.warnings,
            observer_failures=self.observer_failures, findings=findings, timeline=tuple(entries),
            tool_times=tuple(self.tool_times) if self.detailed else (),
        )  # fmt: skip


def read_journal(path: Path, builder: SessionBuilder) -> int:
    """Feed a session journal's events, assessments and failures to `builder`; the number of
    lines that could not be read (skipped, as everywhere journals are read)."""
    try:
        data = path.read_bytes()
    except OSError:
        return 1
    skipped = 0
    for line in _lines(data):
        end = line.find(b'"', len(_PREFIX))
        kind = line[len(_PREFIX) : end].decode() if line.startswith(_PREFIX) and end > 0 else ""
        if kind not in _WANTED:
            continue
        try:
            _feed(builder, kind, line)
        except (ValueError, KeyError, TypeError):
            skipped += 1
    return skipped


def _feed(builder: SessionBuilder, kind: str, line: bytes) -> None:
    if kind == "assessment":
        found = decode_record(json.loads(line))
        if isinstance(found, Assessment):
            builder.assessment(found)
        return
    data = json.loads(line)
    if not builder.named and data.get("session_id"):
        builder.session_id, builder.named = str(data["session_id"]), True
    if kind == "tool_call":
        builder.tool(parse_time(data["at"]), str(data.get("tool", "")), bool(data.get("ok", True)),
                     data.get("error"))  # fmt: skip
    elif kind == "observer_failure":
        builder.failure(str(data["observer"]), parse_time(data["at"]), str(data.get("error", "")),
                        int(data.get("call_index", 0)))  # fmt: skip
    else:
        if kind == "session_started":
            builder.agent = builder.agent or str(data.get("agent_name") or "")
            builder.host = builder.host or str(data.get("host") or "")
        builder.event(kind, parse_time(data["at"]), str(data.get("text", "")))


def _lines(data: bytes) -> Iterator[bytes]:
    complete = data.rfind(b"\n") + 1
    for line in data[:complete].split(b"\n"):
        if line.strip():
            yield line


def _clip(text: str | None) -> str:
    """Agent and tool text as the report keeps it: secrets redacted, clipped."""
    return clip(redact(text or ""), TEXT_LIMIT)
