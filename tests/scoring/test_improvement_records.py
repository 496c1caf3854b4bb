"""Improvements a person can follow: one suggestion per weakness, linked to it; a rollback sticks
with auto on; `apply` of a line already there changes nothing and a later rollback takes out no
earlier line; history keeps one record per change and no applied line that left the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from scored_sessions import PROJECT, card, record_session

from onlooker.errors import ScoringError
from onlooker.scoring import ObserverCommands, Scores, ScoringSettings, score_session
from onlooker.store import Store
from onlooker.testing import ScriptedModel

SETTINGS = ScoringSettings(model="scripted:test", min_observations_for_update=2)
WEAKNESSES = [
    "edits files without reading them first",
    "runs no tests after editing",
    "leaves debug prints in the code",
    "answers without a summary",
]
RULES = "# Rules\nKeep diffs small.\n"


def low_sessions(store: Store, root: Path, names: list[str], answer: dict[str, object]) -> None:
    for name in names:
        record_session(store, name)
        score_session(store, ScriptedModel([answer]), project=PROJECT, session_id=name,
                      root=root, settings=SETTINGS, automatic=True)  # fmt: skip


def test_one_suggestion_per_weakness_linked_to_it(store: Store, tmp_path: Path) -> None:
    answer = card(0.3, WEAKNESSES, suggested_agents_md_update="Run the tests after each edit")
    low_sessions(store, tmp_path, ["s1", "s2"], answer)
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    waiting = commands.suggest().data["pending"]
    assert sorted(p["pattern"] for p in waiting) == sorted(WEAKNESSES)
    texts = {p["pattern"]: p["text"] for p in waiting}
    assert texts["runs no tests after editing"] == "Run the tests after each edit"
    assert len(set(texts.values())) == 4  # the judge's one line goes to the weakness it answers
    shown = commands.suggest().text
    for weakness in WEAKNESSES:
        assert f"for weakness: {weakness}" in shown


def test_apply_of_a_line_already_present_changes_nothing_and_records_follow_the_file(
    store: Store, tmp_path: Path
) -> None:
    agents = tmp_path / "AGENTS.md"
    agents.write_text(RULES)
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    first = card(0.3, ["reads no files before editing"], suggested_agents_md_update="Read first")
    low_sessions(store, tmp_path, ["a1", "a2"], first)
    applied = commands.apply()
    assert "+ - Read first" in applied.text and "for weakness: reads no files" in applied.text
    agents.write_text(agents.read_text() + "- Run the tests\n")  # a line the person wrote
    held = agents.read_text()
    second = card(0.3, ["runs no tests after editing"], suggested_agents_md_update="Run the tests")
    low_sessions(store, tmp_path, ["b1", "b2"], second)
    same = commands.apply()
    assert "already present, nothing changed: Run the tests" in same.text
    assert agents.read_text() == held
    done = commands.rollback()
    assert [r["text"] for r in done.data["rolled_back"]] == ["Read first"]
    assert "- Run the tests" in agents.read_text() and "Read first" not in agents.read_text()
    statuses = {i.text: i.status for i in Scores(store).improvements(PROJECT)}
    assert statuses == {"Read first": "rolled_back", "Run the tests": "present"}


def test_with_auto_on_a_rollback_sticks_and_history_stays_one_record(
    store: Store, tmp_path: Path
) -> None:
    agents = tmp_path / "AGENTS.md"
    agents.write_text(RULES)
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    commands.auto("on")
    answer = card(0.3, ["runs no tests after editing"], suggested_agents_md_update="Run tests")
    low_sessions(store, tmp_path, ["s1", "s2"], answer)
    assert "- Run tests" in agents.read_text()
    done = commands.rollback()
    assert done.data["rejected"] == ["runs no tests after editing"]
    assert agents.read_text() == RULES
    low_sessions(store, tmp_path, ["s3", "s4"], answer)  # more low sessions, same weakness
    assert agents.read_text() == RULES  # not applied again
    assert commands.suggest().data["pending"] == []
    # The person says otherwise: the same change comes back as the same record.
    commands.unreject("runs no tests after editing")
    low_sessions(store, tmp_path, ["s5"], answer)
    assert "- Run tests" in agents.read_text()
    records = commands.history().data["improvements"]
    assert [(r["status"], r["text"]) for r in records] == [("applied", "Run tests")]
    # A line taken out by hand is no longer listed as applied.
    agents.write_text(RULES)
    assert [r["status"] for r in commands.history().data["improvements"]] == ["removed"]


def test_status_of_an_agent_counts_its_own_improvements(store: Store, tmp_path: Path) -> None:
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    answer = card(0.3, ["reads too little context"])
    for n in range(2):
        record_session(store, f"p{n}/a{n}", agent_type="Explore", parent=f"p{n}")
        score_session(store, ScriptedModel([answer]), project=PROJECT, session_id=f"p{n}/a{n}",
                      root=tmp_path, settings=SETTINGS)  # fmt: skip
    assert commands.status("Explore").data["pending"] == 1
    assert commands.status("main").data["pending"] == 0


def test_score_of_an_unknown_name_says_so(store: Store, tmp_path: Path) -> None:
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS,
                                model_for=lambda _: ScriptedModel([card(0.9, [])]))  # fmt: skip
    with pytest.raises(ScoringError, match=r"no session 'reviewer'.*no scored agent"):
        commands.score("reviewer")


def test_score_without_an_id_passes_over_onlookers_own_command_sessions(
    store: Store, tmp_path: Path
) -> None:
    record_session(store, "work", prompt="add a test")
    record_session(store, "command", prompt="/onlooker:score")
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS,
                                model_for=lambda _: ScriptedModel([card(0.9, [])]))  # fmt: skip
    assert commands.score().data["score"]["session_id"] == "work"
