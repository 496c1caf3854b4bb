"""Scores in the store and what they lead to: the first-run guard, the debounce, a repeated
weakness becoming a pending improvement, rejection, applying and rolling back, the outcome delta,
the cost recorded, and `reindex` rebuilding all of it from the journals."""

from __future__ import annotations

from pathlib import Path

from instruction_adapter import SectionFiles

from conftest import PROJECT, card, record_session
from onlooker.core.events import UserPrompt
from onlooker.runtime import reindex
from onlooker.scoring import ObserverCommands, Scores, ScoringSettings, score_session
from onlooker.store import Store
from onlooker.testing import ScriptedModel

SETTINGS = ScoringSettings(model="scripted:test")
WEAK = "runs no tests after editing"


def scored(store: Store, model: ScriptedModel, session_id: str, root: Path, **kw: object) -> object:
    return score_session(
        store, model, project=PROJECT, session_id=session_id, root=root, settings=SETTINGS,
        automatic=True, **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def test_first_run_guard_and_debounce(store: Store, tmp_path: Path) -> None:
    model = ScriptedModel([card(0.8, [])])
    record_session(store, "old", source="resume")
    assert "first-run guard" in scored(store, model, "old", tmp_path).skipped  # type: ignore[attr-defined]
    record_session(store, "new")
    assert scored(store, model, "new", tmp_path).score is not None  # type: ignore[attr-defined]
    assert "no new messages" in scored(store, model, "new", tmp_path).skipped  # type: ignore[attr-defined]
    assert model.calls == 1
    at = store.clock.now()
    store.append([UserPrompt(session_id="new", seq=5, at=at, text="more")], project=PROJECT,
                 session_id="new")  # fmt: skip
    assert scored(store, model, "new", tmp_path).score is not None  # type: ignore[attr-defined]
    assert model.calls == 2
    runs = store.runs.costs(PROJECT)
    assert runs[0].observer == "scoring" and runs[0].runs == 2 and runs[0].input_tokens > 0


def test_a_repeated_weakness_becomes_a_reviewed_reversible_change(
    store: Store, tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\n")
    model = ScriptedModel([card(0.3, [WEAK], suggested_agents_md_update="Run pytest after edits")])
    files = SectionFiles()
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS, files=files)
    for n in range(2):
        record_session(store, f"s{n}")
        scored(store, model, f"s{n}", tmp_path)
    assert commands.suggest().data["pending"] == []
    record_session(store, "s2")
    done = scored(store, model, "s2", tmp_path)
    assert [i.text for i in done.proposed] == ["Run pytest after edits"]  # type: ignore[attr-defined]
    assert "Improvement suggestion available" in Scores(store).settings(PROJECT)["notice"]
    assert "Run pytest after edits" in commands.suggest().text
    commands.accept(1)
    assert "- Run pytest after edits" in (tmp_path / "AGENTS.md").read_text()
    applied = Scores(store).improvements(PROJECT)[0]
    assert applied.status == "applied" and applied.score_before == 0.3
    model = ScriptedModel([card(0.9, [])])
    record_session(store, "s3")
    scored(store, model, "s3", tmp_path)
    assert Scores(store).improvements(PROJECT)[0].outcome_score_delta == 0.6
    assert commands.status().data["improvements"]["helped"] == 1
    commands.rollback()
    assert (tmp_path / "AGENTS.md").read_text() == "# Rules\n"
    assert Scores(store).improvements(PROJECT)[0].status == "rolled_back"


def test_rejected_patterns_are_never_suggested_again(store: Store, tmp_path: Path) -> None:
    model = ScriptedModel([card(0.2, [WEAK])])
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS, files=SectionFiles())
    for n in range(3):
        record_session(store, f"s{n}")
        scored(store, model, f"s{n}", tmp_path)
    assert len(commands.suggest().data["pending"]) == 1
    commands.reject("1")
    assert commands.rejections().data["rejections"] == [WEAK]
    for n in range(3, 6):
        record_session(store, f"s{n}")
        scored(store, model, f"s{n}", tmp_path)
    assert commands.suggest().data["pending"] == []
    commands.unreject("runs no tests")
    assert len(commands.suggest().data["pending"]) == 1


def test_subagent_weaknesses_target_its_prompt_and_steering_reaches_the_judge(
    store: Store, tmp_path: Path
) -> None:
    model = ScriptedModel([card(0.3, ["reads too little context before answering"])])
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS, files=SectionFiles())
    commands.steer("Weigh test coverage heavily")
    for n in range(3):
        record_session(store, f"p{n}/a{n}", agent_type="Explore", parent=f"p{n}")
        scored(store, model, f"p{n}/a{n}", tmp_path)
    assert "Weigh test coverage heavily" in model.requests[0].prompt
    [pending] = commands.suggest().data["pending"]
    assert pending["target"] == "agent_prompt" and pending["agent_name"] == "Explore"
    score = Scores(store).all(PROJECT)[0]
    assert (score.agent_type, score.parent_session_id) == ("subagent", "p0")
    assert commands.status("Explore").data["aggregate"]["total_sessions"] == 3


def test_reindex_rebuilds_scores_improvements_rejections_and_settings(
    store: Store, tmp_path: Path
) -> None:
    model = ScriptedModel([card(0.2, [WEAK])])
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS, files=SectionFiles())
    for n in range(3):
        record_session(store, f"s{n}")
        scored(store, model, f"s{n}", tmp_path)
    commands.reject("verbose answers")
    commands.auto("on", prompts=True)
    tables = ("scores", "improvements", "rejections", "observer_settings")
    before = {t: store.index.table_rows(t) for t in tables}
    assert all(before.values())
    reindex(store)
    assert {t: store.index.table_rows(t) for t in tables} == before


def test_max_history_prunes_the_oldest(store: Store, tmp_path: Path) -> None:
    model = ScriptedModel([card(0.8, [])])
    settings = ScoringSettings(model="scripted:test", max_history=2)
    for n in range(4):
        record_session(store, f"s{n}")
        score_session(store, model, project=PROJECT, session_id=f"s{n}", root=tmp_path,
                      settings=settings)  # fmt: skip
    assert [s.session_id for s in Scores(store).all(PROJECT)] == ["s2", "s3"]
