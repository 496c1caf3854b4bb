"""Improvements written by the real file writer (`onlooker.improvement`): an agent's prompt in each
place a host keeps it (Claude Code's agent file, opencode's agent file, opencode.json inline and
`{file:…}` prompts), read by the judge as the agent reads it, changed in its managed section only,
rolled back byte for byte; and the config's managed section name and backup count honoured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import PROJECT, card, record_session
from onlooker.errors import NothingToRollBack
from onlooker.improvement import InstructionTarget, rollback_depth
from onlooker.scoring import ObserverCommands, ScoringSettings, score_session
from onlooker.store import Store
from onlooker.testing import ScriptedModel

SETTINGS = ScoringSettings(model="scripted:test")
SUGGESTION = "Read the files you change before editing them"


def three_weak_sessions(store: Store, root: Path, agent: str) -> ScriptedModel:
    """Three sessions of subagent `agent`, each scored low for the same weakness."""
    model = ScriptedModel([card(0.3, ["edits blind"], suggested_agent_prompt_update=SUGGESTION)])
    for n in range(3):
        record_session(store, f"p{n}/a{n}", agent_type=agent, parent=f"p{n}")
        score_session(store, model, project=PROJECT, session_id=f"p{n}/a{n}", root=root,
                      settings=SETTINGS, automatic=True)  # fmt: skip
    return model


def judged_prompt(model: ScriptedModel) -> str:
    return model.requests[0].prompt


def test_a_claude_code_agent_prompt_keeps_its_front_matter_and_rolls_back(
    store: Store, tmp_path: Path
) -> None:
    agent_file = tmp_path / ".claude" / "agents" / "reviewer.md"
    agent_file.parent.mkdir(parents=True)
    original = b"---\nname: reviewer\ntools: Read, Grep\n---\n\nYou review diffs.\n"
    agent_file.write_bytes(original)
    model = three_weak_sessions(store, tmp_path, "reviewer")
    assert "You review diffs." in judged_prompt(model)
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    [pending] = commands.suggest().data["pending"]
    assert (pending["target"], pending["agent_name"]) == ("agent_prompt", "reviewer")
    applied = commands.accept(1).data["applied"]
    text = agent_file.read_text()
    assert text.startswith("---\nname: reviewer\ntools: Read, Grep\n---\n\nYou review diffs.\n")
    assert "## Observer Inferred Instructions\n" in text and f"- {SUGGESTION}" in text
    backups = tmp_path / ".onlooker" / "backups" / "agents" / "reviewer"
    assert Path(applied["backup_path"]).parent == backups
    commands.rollback("reviewer")
    assert agent_file.read_bytes() == original
    assert [c.action for c in commands.backups("reviewer")] == ["apply", "rollback"]


def test_an_inline_opencode_prompt_is_judged_and_changed_as_a_string(
    store: Store, tmp_path: Path
) -> None:
    config = tmp_path / "opencode.json"
    original = (
        b'{\n  // the build agent\n  "agent": {"build": {"model": "x", '
        b'"prompt": "You build things.\\nAlways lint."}},\n  "theme": "dark"\n}\n'
    )
    config.write_bytes(original)
    model = three_weak_sessions(store, tmp_path, "build")
    assert "You build things.\nAlways lint." in judged_prompt(model)
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    commands.accept(1)
    changed = config.read_text()
    assert changed.startswith('{\n  // the build agent\n  "agent": {"build": {"model": "x", ')
    assert changed.endswith('},\n  "theme": "dark"\n}\n')
    prompt = json.loads("\n".join(changed.splitlines()[:1] + changed.splitlines()[2:]))
    assert prompt["agent"]["build"]["prompt"].startswith("You build things.\nAlways lint.")
    assert f"- {SUGGESTION}" in prompt["agent"]["build"]["prompt"]
    commands.rollback("build")
    assert config.read_bytes() == original


def test_a_file_referenced_opencode_prompt_is_the_one_read_and_written(
    store: Store, tmp_path: Path
) -> None:
    (tmp_path / "opencode.json").write_text(
        '{"agent": {"plan": {"prompt": "{file:./prompts/plan.md}"}}}'
    )
    prompt = tmp_path / "prompts" / "plan.md"
    prompt.parent.mkdir()
    prompt.write_text("You plan work in small steps.\n")
    model = three_weak_sessions(store, tmp_path, "plan")
    assert "You plan work in small steps." in judged_prompt(model)
    assert "{file:" not in judged_prompt(model)
    commands = ObserverCommands(store, PROJECT, tmp_path, SETTINGS)
    commands.accept(1)
    assert f"- {SUGGESTION}" in prompt.read_text()
    assert "{file:./prompts/plan.md}" in (tmp_path / "opencode.json").read_text()
    commands.rollback("plan")
    assert prompt.read_text() == "You plan work in small steps.\n"


def test_the_configured_section_name_and_backup_count_are_used(
    store: Store, tmp_path: Path
) -> None:
    (tmp_path / "AGENTS.md").write_text("# Rules\n")
    settings = ScoringSettings(
        model="scripted:test", sections_managed=("Learned Rules",), backup_max_versions=2
    )
    model = ScriptedModel([card(0.2, ["guesses APIs", "skips tests", "long answers"])])
    for n in range(3):
        record_session(store, f"s{n}")
        score_session(store, model, project=PROJECT, session_id=f"s{n}", root=tmp_path,
                      settings=settings, automatic=True)  # fmt: skip
    commands = ObserverCommands(store, PROJECT, tmp_path, settings)
    assert len(commands.suggest().data["pending"]) == 3
    for _ in range(3):
        commands.apply()
    text = (tmp_path / "AGENTS.md").read_text()
    assert "## Learned Rules\n" in text and "Observer Inferred Instructions" not in text
    assert text.count("- Avoid this recurring weakness: ") == 3
    assert rollback_depth(InstructionTarget.project(tmp_path)) == 2
    commands.rollback(steps=2)
    assert text.count("- Avoid") == 3 and (tmp_path / "AGENTS.md").read_text().count("- ") == 1
    with pytest.raises(NothingToRollBack):
        commands.rollback()
