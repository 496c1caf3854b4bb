"""What the report tests draw: a store with two sessions of one project (findings, a reviewer run, a memory), and the
demo transcript: what the report tests draw."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from onlooker.core.assessment import Assessment, Finding
from onlooker.core.events import SessionStarted, ToolCall, UserPrompt
from onlooker.core.records import Record
from onlooker.store import Store

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
HOSTILE = '<script>console.error("xss")</script><img src="http://127.0.0.1:9/x.png">'
DEMO = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "flaky-tests.jsonl"


def session(sid: str, start: datetime, calls: int, failing: set[int]) -> list[Record]:
    records: list[Record] = [
        SessionStarted(session_id=sid, seq=1, at=start, project="shop", agent_name="coder"),
        UserPrompt(session_id=sid, seq=2, at=start, text=f"fix the tests {HOSTILE}"),
    ]
    for i in range(1, calls + 1):
        at = start + timedelta(minutes=i)
        records.append(
            ToolCall(session_id=sid, seq=2 + i, at=at, tool="Bash", index=i, ok=i not in failing,
                     error=None if i not in failing else f"exit 1 {HOSTILE}")
        )  # fmt: skip
    records.append(
        Assessment(observer_name="stall", summary=f"Same failing command {HOSTILE}",
                   severity="high", timestamp=start + timedelta(minutes=calls), call_index=calls)
    )  # fmt: skip
    return records


SCORES = [
    {"session_id": "s-old", "agent_name": "coder", "timestamp": "2026-03-01T12:30:00Z",
     "overall_score": 0.55},
    {"session_id": "s-new", "agent_name": "coder", "timestamp": "2026-03-02T12:30:00Z",
     "overall_score": 0.7, "markers": [{"kind": "applied", "label": "AGENTS.md: run one test"},
                                        {"kind": "delta", "delta": 0.15}]},
    {"session_id": "r-1", "agent_name": "reviewer", "timestamp": "2026-03-02T09:00:00Z",
     "overall_score": 0.8, "markers": [{"kind": "rolled_back", "label": HOSTILE}]},
]  # fmt: skip


def fill(store: Store) -> Store:
    for sid, day, calls, failing in (("s-old", 0, 4, set()), ("s-new", 1, 6, {3, 4})):
        at = START + timedelta(days=day)
        store.append(session(sid, at, calls, failing), project="shop", session_id=sid)
        store.create(
            [Finding(content=f"retry loop {sid} {HOSTILE}", observer="stall", severity="high",
                     evidence=f"calls 3-4 {HOSTILE}", created_at=at),
             Finding(content=f"slow test {sid}", observer="Code Quality", severity="low",
                     created_at=at)],
            project="shop", session_id=sid,
        )  # fmt: skip
    store.record_observer_run("Security Reviewer", session_id="s-new", project="shop",
                              status="ok", duration=2.5, model="openai:gpt-4o-mini",
                              input_tokens=1200, output_tokens=80, cost_usd=0.0003,
                              report="Nothing new.")  # fmt: skip
    return store
