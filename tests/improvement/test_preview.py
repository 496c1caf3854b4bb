"""What an apply would change, read before it is made: the same lines, section and file the apply
then writes, nothing written by the preview (no backup, no lock, no file created), and "nothing
would change" for a line or description the file already holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onlooker.errors import ImprovementError
from onlooker.improvement import (
    InstructionTarget,
    apply_instructions,
    describe_agent,
    preview_description,
    preview_instructions,
)


def test_the_preview_is_what_the_apply_then_does_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"# Rules\r\n\r\nUse tabs.\r\n")
    target = InstructionTarget.project(tmp_path)
    planned = preview_instructions(target, ["- Run the tests", "Read before editing"])
    assert planned.changed and not planned.creates
    assert planned.lines == ("Run the tests", "Read before editing")
    assert planned.section == "Observer Inferred Instructions"
    assert planned.path == (tmp_path / "AGENTS.md").resolve()
    assert planned.backups == target.backups
    assert (tmp_path / "AGENTS.md").read_bytes() == b"# Rules\r\n\r\nUse tabs.\r\n"
    assert not (tmp_path / ".onlooker").exists()  # no backup, no lock
    change = apply_instructions(target, ["- Run the tests", "Read before editing"])
    assert change.lines == planned.lines and change.section == planned.section
    assert change.backup is not None and change.backup.parent == planned.backups
    again = preview_instructions(target, ["Run the tests", "Write docs"])
    assert again.changed and again.lines == ("Write docs",)
    present = preview_instructions(target, ["Run the tests"])
    assert not present.changed and present.lines == ()
    assert not apply_instructions(target, ["Run the tests"]).changed


def test_a_missing_file_is_one_the_apply_would_create(tmp_path: Path) -> None:
    target = InstructionTarget.project(tmp_path)
    planned = preview_instructions(target, ["Run the tests"])
    assert planned.creates and planned.changed and planned.path.name == "CLAUDE.md"
    assert not planned.path.exists()


def test_a_description_preview_and_its_refusals(tmp_path: Path) -> None:
    file = tmp_path / ".claude" / "agents" / "review.md"
    file.parent.mkdir(parents=True)
    file.write_text("---\nname: review\n---\nYou review.\n")
    target = InstructionTarget.agent(tmp_path, "review")
    planned = preview_description(target, "Reviews  diffs")
    assert planned.changed and planned.lines == ("description: Reviews diffs",)
    assert planned.section == "" and file.read_text() == "---\nname: review\n---\nYou review.\n"
    describe_agent(target, "Reviews diffs")
    assert not preview_description(target, "Reviews diffs").changed
    (tmp_path / "opencode.json").write_text(json.dumps({"agent": {"build": {"prompt": "x"}}}))
    inline = InstructionTarget.agent(tmp_path, "build", "opencode")
    with pytest.raises(ImprovementError, match=r"agent\.build\.description"):
        preview_description(inline, "Builds")
