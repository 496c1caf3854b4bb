"""Scoring while a session runs: every `turn_interval` turns (a turn's job waits for them), and an
opt-in notice when an automatic evaluation starts."""

from __future__ import annotations

from pathlib import Path

from scored_sessions import PROJECT, card, record_session

from onlooker.core.events import TurnEnded, UserPrompt
from onlooker.scoring import Scores, ScoringSettings, score_session
from onlooker.store import Store
from onlooker.testing import ScriptedModel


def another_turn(store: Store, seq: int) -> None:
    at = store.clock.now()
    store.append([UserPrompt(session_id="s1", seq=seq, at=at, text="more"),
                  TurnEnded(session_id="s1", seq=seq + 1, at=at, last_message="ok")],
                 project=PROJECT, session_id="s1")  # fmt: skip


def test_a_session_is_scored_every_n_turns(store: Store, tmp_path: Path) -> None:
    settings = ScoringSettings(model="scripted:test", turn_interval=2)
    model = ScriptedModel([card(0.8, [])])

    def turn_job() -> object:
        return score_session(store, model, project=PROJECT, session_id="s1", root=tmp_path,
                             settings=settings, automatic=True, every_turns=2)  # fmt: skip

    record_session(store, "s1")  # one turn
    assert "1 of 2 turns" in turn_job().skipped  # type: ignore[attr-defined]
    another_turn(store, 5)
    assert turn_job().score is not None  # type: ignore[attr-defined]
    another_turn(store, 7)
    assert "1 of 2 turns" in turn_job().skipped  # type: ignore[attr-defined]
    assert model.calls == 1


def test_an_opt_in_notice_says_an_evaluation_starts(store: Store, tmp_path: Path) -> None:
    settings = ScoringSettings(model="scripted:test", notify_on_evaluation=True)
    record_session(store, "s1")
    score_session(store, ScriptedModel([card(0.8, [])]), project=PROJECT, session_id="s1",
                  root=tmp_path, settings=settings, automatic=True)  # fmt: skip
    notice = Scores(store).settings(PROJECT)["notice"]
    assert notice.startswith("onlooker: evaluating session s1 (main)…\n")
    record_session(store, "s2")
    score_session(store, ScriptedModel([card(0.8, [])]), project=PROJECT, session_id="s2",
                  root=tmp_path, settings=ScoringSettings(model="scripted:test"), automatic=True)  # fmt: skip
    assert "evaluating session s2" not in Scores(store).settings(PROJECT)["notice"]
