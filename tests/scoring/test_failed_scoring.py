"""A judge call that fails or answers what is no card is a failed scoring, never a score: an
earlier real score stays, and averages, trends and improvement outcomes use real scores only."""

from __future__ import annotations

from pathlib import Path

import pytest
from scored_sessions import PROJECT, card, record_session

from onlooker.core.events import UserPrompt
from onlooker.errors import ModelUnavailable, ScoringError
from onlooker.scoring import ObserverCommands, Scores, ScoringSettings, score_session
from onlooker.store import Store
from onlooker.testing import ScriptedModel

SETTINGS = ScoringSettings(model="scripted:test", retries=0, min_observations_for_update=1)
WEAK = "edits files without reading them first"


def more(store: Store, session_id: str, seq: int) -> None:
    at = store.clock.now()
    store.append([UserPrompt(session_id=session_id, seq=seq, at=at, text="again")],
                 project=PROJECT, session_id=session_id)  # fmt: skip


@pytest.mark.parametrize("answer", [ModelUnavailable("HTTP 500"), {"nope": 1}, ""])
def test_a_failed_judge_call_keeps_the_real_score(
    store: Store, tmp_path: Path, answer: object
) -> None:
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    record_session(store, "s1")
    score_session(store, ScriptedModel([card(0.45, [WEAK])]), project=PROJECT, session_id="s1",
                  root=tmp_path, settings=SETTINGS, automatic=True)  # fmt: skip
    more(store, "s1", 5)
    done = score_session(store, ScriptedModel([answer]), project=PROJECT, session_id="s1",
                         root=tmp_path, settings=SETTINGS, automatic=True)  # fmt: skip
    assert done.score is None and done.failed
    assert "its score stays 45%" in Scores(store).settings(PROJECT)["notice"]
    [kept] = Scores(store).all(PROJECT)
    assert kept.score == 0.45 and kept.card.weaknesses == (WEAK,)
    history = commands.history()
    assert [s["score"] for s in history.data["sessions"]] == [0.45]
    assert "45%" in history.text and "50%" not in history.text
    assert [f["session_id"] for f in history.data["failed"]] == ["s1"]
    assert "s1: scoring failed (no score)" in history.text
    status = commands.status()
    assert WEAK in status.text and "scoring failed" in status.text
    assert status.data["aggregate"]["avg_score"] == 0.45
    with pytest.raises(ScoringError, match=r"failed.*its score stays 45%"):
        ObserverCommands(
            store, PROJECT, tmp_path, SETTINGS, model_for=lambda _: ScriptedModel([answer])
        ).score("s1")
    # A later real score replaces it, and the failure is no longer shown as open.
    score_session(store, ScriptedModel([card(0.8, [])]), project=PROJECT, session_id="s1",
                  root=tmp_path, settings=SETTINGS)  # fmt: skip
    assert [s.score for s in Scores(store).all(PROJECT)] == [0.8]
    assert commands.history().data["failed"] == []


def test_failures_count_in_no_average_trend_or_outcome(store: Store, tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\n")
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    record_session(store, "s1")
    score_session(store, ScriptedModel([card(0.3, [WEAK], suggested_agents_md_update="Read first")]),
                  project=PROJECT, session_id="s1", root=tmp_path, settings=SETTINGS)  # fmt: skip
    commands.accept(1)
    record_session(store, "s2")
    failing = ScriptedModel([ModelUnavailable("HTTP 500")])
    score_session(store, failing, project=PROJECT, session_id="s2", root=tmp_path,
                  settings=SETTINGS)  # fmt: skip
    [improvement] = Scores(store).improvements(PROJECT)
    assert improvement.outcome_score_delta is None  # a failure closes no outcome
    status = commands.status()
    assert status.data["aggregate"]["total_sessions"] == 1
    assert status.data["trend"]["sparkline"] == "▃"
    assert status.data["improvements"]["measured"] == 0
