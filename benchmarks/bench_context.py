"""What the agent hears: every injection of the shared delivery path (the Runtime with a real
SQLite store) over the bundled transcripts and the labeled trajectories, per 100 tool calls.

Figures: messages, characters, duplicate facts, stale statements (a deadline figure that disagrees
with the clock at delivery; a finding delivered after it was resolved or expired) and the share of
delivered findings carrying an id; then two scenarios of issue 25: eight identical failing calls,
and a 30-minute deadline over a 36-minute session. `python -m benchmarks.bench_context --details`
prints what was delivered in the scenarios. See specs/engine.md (Feedback).
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from onlooker.core.clock import FixedClock
from onlooker.core.events import (
    AssistantMessage,
    Event,
    SessionStarted,
    ToolCall,
    UserPrompt,
)
from onlooker.hosts.recorded.transcripts import Transcript, read_transcript
from onlooker.memory.settings import MemorySettings
from onlooker.runtime import Arrival, Runtime
from onlooker.store import Store

from .measure import Result, report

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = (
    ROOT / "examples" / "transcripts",
    ROOT / "tests" / "fixtures" / "transcripts",
    ROOT / "tests" / "fixtures" / "labeled",
    ROOT / "tests" / "fixtures" / "claude-code",
)
DEADLINE_MINUTES = 30
DELIVERABLE = (SessionStarted, UserPrompt, ToolCall)
"""Events at which Claude Code can add context (SessionStart, UserPromptSubmit, PostToolUse)."""

_BLOCK = re.compile(
    r"^(?:\[Trajectory Assessment - (?P<observers>[^\]]+)\]|\[(?P<status>Deadline|Plan Progress)\]"
    r"|(?P<summary><observations>))",
    re.MULTILINE,
)
_CITED = re.compile(r"\bcalls? ((?:\d+(?:-\d+)?)(?:, \d+(?:-\d+)?)*)")
_ID = re.compile(r"\[(?:id|ids) ([0-9a-f]{4,}(?:, [0-9a-f]{4,})*)\]")
_SUMMARY_ID = re.compile(r"^  \[\w+\] \[id ([0-9a-f]{8})\] ", re.MULTILINE)
_REMAINING = re.compile(
    r"(\d+(?:\.\d+)?) (seconds|minutes?|hours) (?:remaining|left)|"
    r"(reached the time deadline)|overdue by (\d+) (seconds|minutes?)"
)
_UNIT = {"seconds": 1, "minute": 60, "minutes": 60, "hours": 3600}


@dataclass(slots=True)
class Heard:
    """What one session's agent was told."""

    calls: int = 0
    injections: int = 0
    messages: int = 0
    deadline_messages: int = 0
    characters: int = 0
    duplicates: int = 0
    stale: int = 0
    findings: int = 0
    with_id: int = 0
    texts: list[str] = field(default_factory=list)

    def add(self, other: Heard) -> None:
        for name in ("calls", "injections", "messages", "deadline_messages", "characters"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("duplicates", "stale", "findings", "with_id"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass(slots=True)
class _Episodes:
    """Facts told so far: the calls each rests on and how many injections told it."""

    told: list[tuple[set[int], int]] = field(default_factory=list)

    def tell(self, calls: set[int]) -> bool:
        """Record one more telling; True when it is a third (or later) telling of one fact."""
        for i, (known, times) in enumerate(self.told):
            if _same_fact(known, calls):
                self.told[i] = (known | calls, times + 1)
                return times + 1 > 2
        self.told.append((set(calls), 1))
        return False


def _same_fact(a: set[int], b: set[int]) -> bool:
    return bool(a and b) and len(a & b) * 2 >= min(len(a), len(b))


def cited(line: str) -> set[int]:
    """Call numbers a line cites (`calls 3, 5-9`, `call 4`)."""
    found: set[int] = set()
    for match in _CITED.finditer(line):
        for part in match.group(1).split(", "):
            low, _, high = part.partition("-")
            found.update(range(int(low), int(high or low) + 1))
    return found


def listen(
    runtime: Runtime,
    store: Store,
    clock: FixedClock,
    events: Iterable[Event],
    session: str,
    *,
    cwd: str,
    minutes: float | None,
) -> Heard:
    """Hand `events` to the runtime as one session; judge every delivery."""
    heard = Heard()
    episodes = _Episodes()
    deadline: datetime | None = None
    latest: datetime | None = None
    for event in events:
        if isinstance(event, AssistantMessage):
            continue  # no hook fires there
        latest = event.at if latest is None else max(latest, event.at)
        clock.set(latest)  # the session's own time, never backwards within it
        if deadline is None and minutes is not None:
            deadline = clock.now() + timedelta(minutes=minutes)  # a resume keeps it
        if isinstance(event, ToolCall):
            heard.calls += 1
        arrival = Arrival(event, session, cwd, deliverable=isinstance(event, DELIVERABLE))
        text = runtime.handle(arrival).context
        if text:
            judge(heard, episodes, text, store, clock.now(), deadline)
    return heard


def judge(
    heard: Heard,
    episodes: _Episodes,
    text: str,
    store: Store,
    now: datetime,
    deadline: datetime | None,
) -> None:
    heard.injections += 1
    heard.characters += len(text)
    heard.texts.append(text)
    for block in _BLOCK.finditer(text):
        heard.messages += 1
        named = block.group("observers") or block.group("status") or ""
        heard.deadline_messages += "Deadline" in named
    immediate = text.split("<observations>", 1)[0]
    lines = [line for line in immediate.splitlines() if line.startswith("• ")]
    here: list[set[int]] = []
    for line in lines:
        heard.findings += 1
        ids = _ID.search(line)
        heard.with_id += ids is not None
        calls = cited(line)
        if any(_same_fact(calls, other) for other in here):
            heard.duplicates += 1
            continue
        here.append(calls)
        if ids is not None:
            heard.stale += sum(_closed(store, i) for i in ids.group(1).split(", "))
    for calls in here:
        heard.duplicates += episodes.tell(calls)
    if "<observations>" in text:
        summary = text.split("<observations>", 1)[1]
        listed = [line for line in summary.splitlines() if re.match(r"^  \[\w+\] ", line)]
        heard.findings += len(listed)
        heard.with_id += len(_SUMMARY_ID.findall(summary))
        heard.stale += sum(_closed(store, i) for i in _SUMMARY_ID.findall(summary))
    heard.stale += _stale_deadline(text, now, deadline)


def _closed(store: Store, prefix: str) -> bool:
    """The finding `prefix` names is resolved or expired now."""
    try:
        found = store.get((store.find_id(prefix),))
    except Exception:
        return False
    return bool(found) and found[0].finding.status not in ("open", "acknowledged")


def _stale_deadline(text: str, now: datetime, deadline: datetime | None) -> int:
    """Deadline figures in `text` that the clock at delivery does not bear out."""
    if deadline is None:
        return 0
    left = (deadline - now).total_seconds()
    stale = 0
    for match in _REMAINING.finditer(text):
        if match.group(3):
            stale += left > 0
        elif match.group(4):
            over = int(match.group(4)) * _UNIT[match.group(5)]
            stale += not (-left - _UNIT[match.group(5)] < over <= -left + 1)
        else:
            unit = _UNIT[match.group(2)]
            said = float(match.group(1)) * unit
            slack = 360 if unit == 3600 else unit
            stale += not (said - 1 <= left < said + slack)
    return stale


def sessions() -> Iterator[Transcript]:
    """Every bundled transcript's sessions (subagents as their own)."""
    for folder in TRANSCRIPTS:
        for path in sorted(folder.rglob("*.jsonl")):
            try:
                transcript = read_transcript(path)
            except Exception:
                continue
            yield from transcript.sessions()


def heard_over(
    sources: Iterable[tuple[str, Iterable[Event]]], deadline: float | None = None
) -> Heard:
    """Every source's events through one Runtime and store, in a project whose config sets the
    deadline (`trajectory.deadline_minutes`), as Claude Code's hooks would hand them over."""
    total = Heard()
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as project:
        config = Path(project, ".onlooker", "config.yaml")
        config.parent.mkdir()
        config.write_text(f"trajectory:\n  deadline_minutes: {deadline}\n" if deadline else "{}\n")
        clock = FixedClock()
        store = Store(Path(home, "data"), clock=clock)
        runtime = Runtime(store=store, clock=clock, memory=MemorySettings(enabled=False))
        try:
            for name, events in sources:
                heard = listen(runtime, store, clock, events, name, cwd=project, minutes=deadline)
                total.add(heard)
                total.texts.extend(heard.texts)
            runtime.close()
        finally:
            store.close()
    return total


def identical_failures(count: int = 8) -> list[Event]:
    """A session whose agent runs one failing `pytest tests/test_auth.py -q` `count` times."""
    at = datetime(2026, 11, 2, 10, 0, 0).astimezone()
    error = (
        "Exit code 1\n"
        "FAILED tests/test_auth.py::test_login - AssertionError: assert 401 == 200\n"
        "1 failed, 4 passed in 0.31s"
    )
    events: list[Event] = [
        SessionStarted(session_id="eight", at=at, cwd=str(ROOT)),
        UserPrompt(session_id="eight", at=at, text="Make the auth tests pass."),
    ]
    for i in range(count):
        events.append(
            ToolCall(
                session_id="eight",
                at=at + timedelta(seconds=20 * (i + 1)),
                call_id=f"toolu_{i}",
                tool="Bash",
                input={"command": "pytest tests/test_auth.py -q"},
                ok=False,
                error=error,
            )
        )
    return events


def deadline_session(minutes: int = 36, every: int = 30) -> list[Event]:
    """A session with a tool call every `every` seconds for `minutes` minutes, a prompt every
    3.5 minutes, and a resume (`claude --resume`) at minute 20."""
    at = datetime(2026, 11, 2, 10, 0, 0).astimezone()
    events: list[Event] = [
        SessionStarted(session_id="clock", at=at, cwd=str(ROOT)),
        UserPrompt(session_id="clock", at=at, text="Tidy the docs."),
    ]
    for i in range(minutes * 60 // every):
        when = at + timedelta(seconds=every * (i + 1))
        events.append(
            ToolCall(
                session_id="clock",
                at=when,
                call_id=f"toolu_{i}",
                tool="Read",
                input={"file_path": f"{ROOT}/docs/page{i}.md"},
                output=f"page {i}",
            )
        )
        if i % 7 == 6:
            events.append(UserPrompt(session_id="clock", at=when, text="Go on."))
        if (i + 1) * every == 20 * 60:
            events.append(SessionStarted(session_id="clock", at=when, source="resume"))
    return events


def per_100(value: int, calls: int) -> str:
    return f"{100 * value / calls:.1f}" if calls else "0"


def measure() -> tuple[Heard, Heard, Heard]:
    recorded = heard_over(((t.session_id, t.events) for t in sessions()), DEADLINE_MINUTES)
    eight = heard_over([("eight", identical_failures())])
    clock = heard_over([("clock", deadline_session())], DEADLINE_MINUTES)
    return recorded, eight, clock


def run() -> list[Result]:
    return figures(*measure())


def figures(recorded: Heard, eight: Heard, clock: Heard) -> list[Result]:
    share = recorded.with_id / recorded.findings if recorded.findings else 1.0
    eight_share = eight.with_id / eight.findings if eight.findings else 1.0
    return [
        Result("tool calls (bundled sessions)", str(recorded.calls), "deadline 30 min each"),
        Result("injections / 100 calls", per_100(recorded.injections, recorded.calls)),
        Result("messages / 100 calls", per_100(recorded.messages, recorded.calls)),
        Result(
            "deadline messages / 100 calls", per_100(recorded.deadline_messages, recorded.calls)
        ),
        Result("characters / 100 calls", per_100(recorded.characters, recorded.calls)),
        Result(
            "duplicate facts / 100 calls",
            per_100(recorded.duplicates, recorded.calls),
            f"{recorded.duplicates} in all; target 0",
            ok=recorded.duplicates == 0,
        ),
        Result(
            "stale statements / 100 calls",
            per_100(recorded.stale, recorded.calls),
            f"{recorded.stale} in all; target 0",
            ok=recorded.stale == 0,
        ),
        Result(
            "findings carrying an id",
            f"{share:.0%}",
            f"{recorded.with_id} of {recorded.findings}; target 100%",
            ok=share == 1.0,
        ),
        Result(
            "8 identical failures: messages",
            str(eight.messages),
            "target <= 2",
            ok=eight.messages <= 2,
        ),
        Result(
            "8 identical failures: characters",
            str(eight.characters),
            "target <= 900",
            ok=eight.characters <= 900,
        ),
        Result(
            "8 identical failures: ids, dupes",
            f"{eight_share:.0%}, {eight.duplicates}",
            "target 100%, 0",
            ok=eight_share == 1.0 and eight.duplicates == 0,
        ),
        Result(
            "30-min deadline: deadline msgs",
            str(clock.deadline_messages),
            f"36 min, a call every 30 s, resumed at 20; stale {clock.stale}; target <= 6, 0",
            ok=clock.deadline_messages <= 6 and clock.stale == 0,
        ),
    ]


def main(argv: list[str]) -> int:
    recorded, eight, clock = measure()
    if "--details" in argv:
        for title, heard in (("eight identical failures", eight), ("30-minute deadline", clock)):
            print(f"== {title} ==")
            for text in heard.texts:
                print(text, end="\n---\n")
    return report(figures(recorded, eight, clock))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
