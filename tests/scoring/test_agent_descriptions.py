"""A subagent's description (when its parent delegates to it) as a pending improvement: proposed
from the judge's suggestion, never applied without asking, written in the front matter of the
agent's file, and rolled back like any change."""

from __future__ import annotations

from pathlib import Path

from scored_sessions import PROJECT, card, record_session

from onlooker.improvement import InstructionTarget, agent_description
from onlooker.scoring import ObserverCommands, Scores, ScoringSettings, score_session
from onlooker.store import Store
from onlooker.testing import ScriptedModel

SETTINGS = ScoringSettings(model="scripted:test", auto_update_agent_prompts=True)
AGENT = "---\nname: Explore\ndescription: Explores code\ntools: Read\n---\nYou explore.\n"
BETTER = "Finds files and reads code; use it for questions about where things are"


def test_a_suggested_description_becomes_a_pending_change_of_the_front_matter(
    store: Store, tmp_path: Path
) -> None:
    agent_file = tmp_path / ".claude" / "agents" / "Explore.md"
    agent_file.parent.mkdir(parents=True)
    agent_file.write_text(AGENT)
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    answer = card(0.8, [], suggested_agent_description_update=BETTER)
    for n in range(2):
        record_session(store, f"p{n}/a{n}", agent_type="Explore", parent=f"p{n}")
        score_session(store, ScriptedModel([answer]), project=PROJECT, session_id=f"p{n}/a{n}",
                      root=tmp_path, settings=SETTINGS, automatic=True)  # fmt: skip
    assert agent_file.read_text() == AGENT  # not applied without asking, even with auto on
    (pending,) = commands.suggest().data["pending"]
    assert (pending["target"], pending["agent_name"], pending["text"]) == (
        "agent_description", "Explore", BETTER,
    )  # fmt: skip
    assert "[Explore description]" in commands.suggest().text
    applied = commands.apply()
    assert "in its front matter" in applied.text
    target = InstructionTarget.agent(tmp_path, "Explore")
    assert agent_description(target) == BETTER
    assert agent_file.read_text().endswith("tools: Read\n---\nYou explore.\n")
    done = commands.rollback("Explore")
    assert [r["target"] for r in done.data["rolled_back"]] == ["agent_description"]
    assert agent_file.read_text() == AGENT
    assert Scores(store).improvements(PROJECT)[0].status == "rolled_back"


def test_a_built_in_agent_without_a_file_gets_no_description_change(
    store: Store, tmp_path: Path
) -> None:
    answer = card(0.8, [], suggested_agent_description_update=BETTER)
    record_session(store, "p/a", agent_type="general-purpose", parent="p")
    score_session(store, ScriptedModel([answer]), project=PROJECT, session_id="p/a",
                  root=tmp_path, settings=SETTINGS, automatic=True)  # fmt: skip
    assert Scores(store).improvements(PROJECT) == []
    assert not (tmp_path / ".claude").exists()
