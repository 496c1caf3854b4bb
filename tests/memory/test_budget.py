"""Token budgets of extraction's model: checked before each call, per session and per UTC day;
a refused batch is made by rule; calls, tokens and cost are journaled and survive a reindex."""

from __future__ import annotations

from pathlib import Path

import pytest

from onlooker import FixedClock
from onlooker.memory._memories import Memories
from onlooker.memory.budget import TokenBudget
from onlooker.memory.extract import extract_session
from onlooker.memory.usage import describe, model_report
from onlooker.runtime import reindex
from onlooker.store import Store
from onlooker.testing import ScriptedModel

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike

ANSWER = {
    "memories": [{"title": "Run tests with pytest", "content": "The suite runs with pytest -q."}]
}


def queue(memories: Memories, count: int, clock: FixedClock, session: str = "s1") -> None:
    for n in range(count):
        clock.advance(1)
        outcome = "exit 0" if n % 2 else "exit 1: AssertionError: total is 11, not 12"
        memories.add_pending(session_id=session, project="shop", tool_name="Bash",
                             compressed=f"Ran `pytest tests/test_{n}.py -q` → {outcome}",
                             at=clock.now())  # fmt: skip


def test_calls_are_recorded_with_tokens_and_cost(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        queue(memories, 40, clock)
        model = ScriptedModel([ANSWER], cost_per_call=0.002)
        report = extract_session(memories, model, project="shop", session_id="s1",
                                 budget=TokenBudget(50_000, 500_000))  # fmt: skip
        assert (report.batches, report.over_budget) == (2, 0)
        sent = sum(len(m.content.split()) for r in model.requests for m in r.messages)
        shown = model_report(memories, configured="scripted:test", home=tmp_path / "h",
                             now=clock.now())  # fmt: skip
        assert shown["calls"] == 2 and shown["input_tokens"] == sent
        assert shown["cost_usd"] == 0.004 and shown["tokens_today"] > sent
        assert "2 calls" in describe(shown)[1]
    with Store(tmp_path / "h", clock=clock) as store:  # the journals are the truth
        reindex(store, ())
        again = model_report(Memories(store), configured="", home=tmp_path / "h", now=clock.now())
        assert (again["calls"], again["input_tokens"]) == (2, sent)


def test_a_session_over_its_budget_is_digested_by_rule(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        queue(memories, 60, clock)
        model = ScriptedModel([ANSWER])
        one_call = TokenBudget(session_tokens=900, daily_tokens=0)
        report = extract_session(memories, model, project="shop", session_id="s1",
                                 budget=one_call)  # fmt: skip
        assert model.calls == 1 and report.over_budget == 2
        assert memories.pending("shop", "s1") == []  # nothing lost: the rule digest took them
        by_rule = [m for m in report.memories if m.title != ANSWER["memories"][0]["title"]]
        assert by_rule and all("pytest tests/test_" in m.title for m in by_rule)
        shown = model_report(memories, configured="", home=tmp_path / "h", now=clock.now())
        assert shown["over_budget"] == {"session": 2, "day": 0}
        assert "over the token budget" in describe(shown)[-1]
        queue(memories, 20, clock, session="s2")  # another session has its own budget
        extract_session(memories, model, project="shop", session_id="s2", budget=one_call)
        assert model.calls == 2


def test_the_daily_budget_spans_sessions_and_resets_the_next_day(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        model = ScriptedModel([ANSWER])
        daily = TokenBudget(session_tokens=0, daily_tokens=1_000)
        for session in ("s1", "s2"):
            queue(memories, 20, clock, session=session)
            extract_session(memories, model, project="shop", session_id=session, budget=daily)
        assert model.calls == 1
        clock.advance(86_400)
        queue(memories, 20, clock, session="s3")
        extract_session(memories, model, project="shop", session_id="s3", budget=daily)
        assert model.calls == 2
