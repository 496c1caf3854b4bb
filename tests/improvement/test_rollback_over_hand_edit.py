"""A rollback over a hand edit made after an applied improvement keeps the edit (only the lines the
apply added are taken out), or refuses and says how to go on; never discards it silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onlooker.errors import EditedByHand
from onlooker.improvement import InstructionTarget, apply_instructions, rollback

ORIGINAL = "# Rules\nKeep diffs small.\n"


def test_a_hand_edit_outside_the_section_is_kept(tmp_path: Path) -> None:
    agents = tmp_path / "AGENTS.md"
    agents.write_text(ORIGINAL)
    target = InstructionTarget.project(tmp_path)
    apply_instructions(target, ["Run the tests"])
    agents.write_text(
        agents.read_text().replace("Keep diffs small.", "Keep diffs small.\nUse tabs.")
    )
    rollback(target)
    assert agents.read_text() == "# Rules\nKeep diffs small.\nUse tabs.\n"


def test_a_hand_edit_inside_the_section_is_kept(tmp_path: Path) -> None:
    agents = tmp_path / "AGENTS.md"
    agents.write_text(ORIGINAL)
    target = InstructionTarget.project(tmp_path)
    apply_instructions(target, ["Run the tests"])
    apply_instructions(target, ["Read before editing"])
    agents.write_text(agents.read_text() + "- A line of my own\n")
    rollback(target)
    text = agents.read_text()
    assert "- Run the tests" in text and "- A line of my own" in text
    assert "Read before editing" not in text


def test_an_edited_line_of_the_change_refuses_and_says_how(tmp_path: Path) -> None:
    agents = tmp_path / "AGENTS.md"
    agents.write_text(ORIGINAL)
    target = InstructionTarget.project(tmp_path)
    apply_instructions(target, ["Run the tests"])
    edited = agents.read_text().replace("Run the tests", "Run the tests with -x")
    agents.write_text(edited)
    with pytest.raises(EditedByHand, match=r"edited by hand.*--force"):
        rollback(target)
    assert agents.read_text() == edited
    rollback(target, force=True)
    assert agents.read_text() == ORIGINAL
    backups = sorted((tmp_path / ".onlooker/backups/AGENTS.md").glob("*--pre-rollback.md"))
    assert backups[-1].read_text() == edited  # the hand edit is kept in the named backup


def test_a_prompt_undone_in_place_ends_as_the_kept_version_did(tmp_path: Path) -> None:
    """An agent's prompt string has no line end after its last line; another agent's change in the
    same opencode.json makes the rollback undo in place, and the prompt ends as it did before."""
    config = tmp_path / "opencode.json"
    agents = {name: {"prompt": f"You are {name}."} for name in ("a", "b")}
    config.write_text(json.dumps({"agent": agents}, indent=2) + "\n")
    first, other = (InstructionTarget.agent(tmp_path, name, "opencode") for name in ("a", "b"))
    apply_instructions(first, ["first"])
    kept = json.loads(config.read_text())["agent"]["a"]["prompt"]
    apply_instructions(first, ["second"])
    apply_instructions(other, ["the other agent's"])  # the file is no longer first's last write
    rollback(first)
    prompts = json.loads(config.read_text())["agent"]
    assert prompts["a"]["prompt"] == kept and not kept.endswith("\n")
    assert prompts["b"]["prompt"].endswith("- the other agent's")
