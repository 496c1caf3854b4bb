"""What the report tests draw: a store with two sessions of one project (findings, a reviewer run,
memories, session scores of two agents and an improvement applied, measured and rolled back), and
the demo transcript."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from onlooker.core.assessment import Assessment, Finding
from onlooker.core.events import SessionStarted, ToolCall, UserPrompt
from onlooker.core.records import Record
from onlooker.memory import Memories
from onlooker.memory._memories import Extracted
from onlooker.scoring import Improvement, ScoreCard, Scores, ScoringSettings, SessionScore
from onlooker.scoring.improve import apply, close_deltas, rollback
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


def fill(store: Store, root: Path) -> Store:
    """`store` (its clock two days after START) with the sessions, findings, a reviewer run,
    memories, and the scores of the project checked out at `root`."""
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
    remember(store)
    record_scores(store, root)
    return store


def remember(store: Store) -> None:
    """Two memories of the project, one shown to a session, and one tool event still pending."""
    memories = Memories(store)
    found = memories.remember(
        [Extracted("flaky test", "test_io is flaky under load", START),
         Extracted("runner", "the suite runs with pytest -x", START)],
        project="shop", session_id="s-old",
    )  # fmt: skip
    memories.mark_shown("s-new", [found[0].id], project="shop")
    memories.add_pending(session_id="s-new", project="shop", tool_name="Bash",
                         compressed="pytest -x: 2 failed", at=START + timedelta(days=1))  # fmt: skip


def score(store: Store, sid: str, agent: str, at: datetime, value: float) -> SessionScore:
    kind = "subagent" if agent == "reviewer" else "primary"
    card = ScoreCard(session_id=sid, timestamp=int(at.timestamp() * 1000), overall_score=value)
    kept = SessionScore(card, "shop", agent_name=agent, agent_type=kind)
    Scores(store).record(kept, max_history=50)
    return kept


def record_scores(store: Store, root: Path) -> None:
    """Scores of the coder and a reviewer subagent through the scoring API; an improvement to the
    project's instructions applied at the clock's now, measured by the next score (+0.15), then
    rolled back, and the reviewer scored after that."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "AGENTS.md").write_text("# Rules\n")
    scores, settings, now = Scores(store), ScoringSettings(), store.clock.now()
    score(store, "s-old", "coder", START + timedelta(minutes=30), 0.55)
    score(store, "r-1", "reviewer", START + timedelta(hours=21), 0.8)
    proposed = Improvement(id="i-1", project="shop", target="agents_md", pattern="no tests run",
                           text=f"Run one test first {HOSTILE}", created_at=now)  # fmt: skip
    scores.save(proposed)
    apply(scores, proposed, root=root, settings=settings, now=now)
    close_deltas(scores, score(store, "s-new", "coder", now + timedelta(hours=1), 0.825))
    store.clock.advance(minutes=120)  # type: ignore[attr-defined]
    rollback(scores, "shop", root=root, settings=settings)
    score(store, "r-2", "reviewer", now + timedelta(hours=3), 0.7)
