"""Setting an agent's description in its front matter: only that line changes, a file without
front matter gets one, quoting survives, and an inline opencode prompt is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onlooker.errors import EditedByHand, ImprovementError
from onlooker.improvement import InstructionTarget, agent_description, describe_agent, rollback


def test_the_description_line_alone_changes_and_rolls_back(tmp_path: Path) -> None:
    file = tmp_path / ".claude" / "agents" / "review.md"
    file.parent.mkdir(parents=True)
    original = "---\r\nname: review\r\ndescription: 'Reviews'\r\n---\r\nYou review: a \"b\".\r\n"
    file.write_bytes(original.encode())
    target = InstructionTarget.agent(tmp_path, "review")
    assert agent_description(target) == "Reviews"
    change = describe_agent(target, 'Reviews diffs: "risky" ones first')
    assert change.changed and change.lines == ('description: Reviews diffs: "risky" ones first',)
    text = file.read_bytes().decode()
    assert text == original.replace("'Reviews'", '"Reviews diffs: \\"risky\\" ones first"')
    assert agent_description(target) == 'Reviews diffs: "risky" ones first'
    assert not describe_agent(target, 'Reviews diffs: "risky" ones first').changed
    rollback(target)
    assert file.read_bytes().decode() == original


def test_a_file_without_front_matter_gets_one_and_hand_edits_are_kept_safe(tmp_path: Path) -> None:
    file = tmp_path / ".claude" / "agents" / "docs.md"
    file.parent.mkdir(parents=True)
    file.write_text("You write docs.\n")
    target = InstructionTarget.agent(tmp_path, "docs")
    describe_agent(target, "Writes docs")
    assert file.read_text() == '---\ndescription: "Writes docs"\n---\nYou write docs.\n'
    file.write_text(file.read_text() + "Be brief.\n")
    with pytest.raises(EditedByHand):
        rollback(target)
    assert file.read_text().endswith("Be brief.\n")


def test_an_inline_opencode_prompt_is_refused(tmp_path: Path) -> None:
    config = {"agent": {"build": {"prompt": "You build.", "description": "Builds"}}}
    (tmp_path / "opencode.json").write_text(json.dumps(config))
    target = InstructionTarget.agent(tmp_path, "build", "opencode")
    with pytest.raises(ImprovementError, match=r"agent\.build\.description"):
        describe_agent(target, "Builds things")
