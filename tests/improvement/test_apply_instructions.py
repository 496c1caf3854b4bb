"""apply_instructions, rollback and history on real files in a project folder."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from onlooker import FixedClock
from onlooker.errors import ImprovementError, NothingToRollBack
from onlooker.improvement import (
    MANAGED_BY,
    SECTION,
    InstructionTarget,
    apply_instructions,
    current_text,
    history,
    managed_lines,
    rollback,
    rollback_depth,
)

AGENT_FILE = (
    "---\r\nname: reviewer\r\ndescription: Reviews code\r\ntools: Read, Grep\r\n---\r\n"
    "You review code.\r\n\r\n## Style\r\nBe brief.\r\n"
)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_agents_md_is_chosen_when_present_else_claude_md(tmp_path: Path) -> None:
    assert InstructionTarget.project(tmp_path).path == tmp_path.resolve() / "CLAUDE.md"
    (tmp_path / "AGENTS.md").write_text("# A\n")
    (tmp_path / "CLAUDE.md").write_text("# C\n")
    target = InstructionTarget.project(tmp_path)
    assert (target.path.name, target.label, target.kind) == ("AGENTS.md", "AGENTS.md", "agents_md")
    assert InstructionTarget.project(tmp_path, "docs/RULES.md").label == "docs/RULES.md"
    assert target.backups == tmp_path.resolve() / ".onlooker" / "backups" / "AGENTS.md"


def test_apply_backs_up_first_and_changes_only_the_section(tmp_path: Path) -> None:
    original = b"# Project\n\nUse make.\n\n## Later\nStays.\n"
    (tmp_path / "AGENTS.md").write_bytes(original)
    target = InstructionTarget.project(tmp_path)
    change = apply_instructions(target, ["Use vitest", "Run tsc --noEmit"])
    after = (tmp_path / "AGENTS.md").read_bytes()
    assert after == original + (
        f"\n## {SECTION}\n{MANAGED_BY}\n- Use vitest\n- Run tsc --noEmit\n".encode()
    )
    assert change.backup is not None and change.backup.read_bytes() == original
    assert change.backup.parent == target.backups
    assert change.backup.name.endswith("-000001--pre-improvement.md")
    assert (change.before_sha, change.after_sha) == (sha(original), sha(after))
    assert (change.target, change.action, change.lines) == (
        "AGENTS.md", "apply", ("Use vitest", "Run tsc --noEmit"),
    )  # fmt: skip
    assert managed_lines(target) == ["Use vitest", "Run tsc --noEmit"]
    assert not (tmp_path / ".onlooker" / "locks" / "AGENTS.md.lock").exists()
    for state in ("locks", "backups"):  # local state, never committed
        assert (tmp_path / ".onlooker" / state / ".gitignore").read_text().endswith("\n*\n")


def test_an_apply_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    target = InstructionTarget.project(tmp_path, "AGENTS.md")
    apply_instructions(target, ["a"])
    mtime = target.path.stat().st_mtime_ns
    again = apply_instructions(target, ["- a"])
    assert not again.changed and again.backup is None
    assert target.path.stat().st_mtime_ns == mtime
    assert len(history(target)) == 1


def test_agent_front_matter_and_crlf_stay_byte_exact(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "agents" / "reviewer.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(AGENT_FILE.encode())
    target = InstructionTarget.agent(tmp_path, "reviewer")
    assert (target.label, target.kind) == ("reviewer prompt", "agent_prompt")
    apply_instructions(target, ["Cite the line you review"])
    after = path.read_bytes()
    assert after.startswith(AGENT_FILE.encode())
    assert after.endswith(b"\r\n- Cite the line you review\r\n")
    assert target.backups == tmp_path.resolve() / ".onlooker" / "backups" / "agents" / "reviewer"
    rollback(target)
    assert path.read_bytes() == AGENT_FILE.encode()


def test_rollback_walks_back_one_version_at_a_time_and_backs_up_first(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"# v0\n")
    target = InstructionTarget.project(tmp_path)
    versions = [(tmp_path / "AGENTS.md").read_bytes()]
    for line in ("one", "two", "three"):
        apply_instructions(target, [line])
        versions.append((tmp_path / "AGENTS.md").read_bytes())
    assert rollback_depth(target) == 3
    undo = rollback(target)
    assert (tmp_path / "AGENTS.md").read_bytes() == versions[2]
    assert undo.backup is not None and undo.backup.read_bytes() == versions[3]
    assert undo.backup.name.endswith("--pre-rollback.md") and undo.steps == 1
    rollback(target)
    assert (tmp_path / "AGENTS.md").read_bytes() == versions[1]
    rollback(target)
    assert (tmp_path / "AGENTS.md").read_bytes() == versions[0]
    with pytest.raises(NothingToRollBack, match=r"AGENTS\.md: 0 earlier version"):
        rollback(target)
    assert [c.action for c in history(target)] == ["apply"] * 3 + ["rollback"] * 3
    assert [c.sequence for c in history(target)] == [1, 2, 3, 4, 5, 6]


def test_rollback_of_several_steps_and_then_new_applies(tmp_path: Path) -> None:
    target = InstructionTarget.project(tmp_path, "AGENTS.md")
    (tmp_path / "AGENTS.md").write_text("base\n")
    apply_instructions(target, ["a"])
    after_a = target.path.read_bytes()
    apply_instructions(target, ["b"])
    apply_instructions(target, ["c"])
    rollback(target, steps=2)
    assert target.path.read_bytes() == after_a
    apply_instructions(target, ["d"])
    assert managed_lines(target) == ["a", "d"]
    rollback(target)
    assert target.path.read_bytes() == after_a
    rollback(target)
    assert target.path.read_bytes() == b"base\n"


def test_a_file_created_by_apply_is_removed_by_rollback(tmp_path: Path) -> None:
    target = InstructionTarget.agent(tmp_path, "build")
    change = apply_instructions(target, ["x"])
    assert change.created and target.path.exists()
    rollback(target)
    assert not target.path.exists()
    assert oct(os.stat(change.backup or "").st_mode & 0o777) == "0o644"


def test_the_file_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("x\n")
    path.chmod(0o600)
    apply_instructions(InstructionTarget.project(tmp_path), ["y"])
    assert path.stat().st_mode & 0o777 == 0o600


def test_pruning_keeps_backup_max_versions_and_what_rollback_needs(tmp_path: Path) -> None:
    target = InstructionTarget.project(tmp_path, "AGENTS.md")
    target.path.write_text("start\n")
    apply_instructions(target, ["kept"], backup_max_versions=3)
    needed = target.path.read_bytes()
    for n in range(6):  # apply and undo: the stack stays one deep, the folder fills up
        apply_instructions(target, [f"tmp {n}"], backup_max_versions=3)
        rollback(target, backup_max_versions=3)
    files = [p for p in target.backups.iterdir() if p.name != "index.json"]
    assert len(files) == 3
    assert rollback_depth(target) == 1
    rollback(target, backup_max_versions=3)
    assert target.path.read_text() == "start\n"
    assert target.path.read_bytes() != needed
    for n in range(5):
        apply_instructions(target, [f"more {n}"], backup_max_versions=3)
    assert rollback_depth(target) == 3
    assert all(c.backup and c.backup.exists() for c in history(target))


def test_an_undecodable_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes(b"caf\xe9\n")
    with pytest.raises(ImprovementError, match=r"AGENTS.md: not UTF-8 text \(byte 3"):
        apply_instructions(InstructionTarget.project(tmp_path), ["x"])
    assert path.read_bytes() == b"caf\xe9\n"
    assert not (tmp_path / ".onlooker" / "backups" / "AGENTS.md").exists()


def test_a_byte_order_mark_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes(b"\xef\xbb\xbf# T\n")
    target = InstructionTarget.project(tmp_path)
    apply_instructions(target, ["x"])
    assert path.read_bytes().startswith(b"\xef\xbb\xbf# T\n\n## ")
    assert current_text(target).startswith("# T\n")


def test_a_symlinked_file_is_edited_through_its_link(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# shared\n")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    target = InstructionTarget.project(tmp_path, "CLAUDE.md")
    apply_instructions(target, ["x"])
    assert (tmp_path / "CLAUDE.md").is_symlink()
    assert managed_lines(InstructionTarget.project(tmp_path, "AGENTS.md")) == ["x"]


def test_nothing_outside_the_project_is_named_or_written(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "elsewhere.md"
    outside.write_text("mine\n")
    (project / "AGENTS.md").symlink_to(outside)
    with pytest.raises(ImprovementError, match="outside the project"):
        InstructionTarget.project(project)
    with pytest.raises(ImprovementError, match="a file name inside the project"):
        InstructionTarget.project(project, "../elsewhere.md")
    with pytest.raises(ImprovementError, match=r"agent name '\.\./x'"):
        InstructionTarget.agent(project, "../x")
    with pytest.raises(ImprovementError, match="host 'cursor'"):
        InstructionTarget.agent(project, "x", host="cursor")
    assert outside.read_text() == "mine\n"


def test_a_killed_writer_leaves_a_pending_change_that_the_next_one_settles(
    tmp_path: Path,
) -> None:
    target = InstructionTarget.project(tmp_path, "AGENTS.md")
    target.path.write_text("v0\n")
    apply_instructions(target, ["a"])
    index_path = target.backups / "index.json"
    index = json.loads(index_path.read_text())
    # As if a writer died after noting its change and before replacing the file.
    index["pending"] = {"after_sha": "0" * 64, "state": {"stack": [], "changes": []}}
    index_path.write_text(json.dumps(index))
    (tmp_path / ".AGENTS.md.abc.onlooker-tmp").write_text("half")
    assert len(history(target)) == 1
    apply_instructions(target, ["b"])
    assert not (tmp_path / ".AGENTS.md.abc.onlooker-tmp").exists()
    assert [c.lines for c in history(target)] == [("a",), ("b",)]


def test_history_is_json_ready_with_the_clock_time(tmp_path: Path, clock: FixedClock) -> None:
    target = InstructionTarget.project(tmp_path, "AGENTS.md")
    apply_instructions(target, ["a"], clock=clock)
    [entry] = history(target)
    data = entry.to_json()
    assert data["timestamp"] == "2026-01-01T00:00:00+00:00"
    assert data["backup"] == str(entry.backup) and data["changed"] is True
    assert entry.backup is not None and entry.backup.name.startswith("2026-01-01T00-00-00.000000Z")


def test_a_bad_backup_max_versions_is_refused_before_writing(tmp_path: Path) -> None:
    target = InstructionTarget.project(tmp_path, "AGENTS.md")
    with pytest.raises(ImprovementError, match="backup_max_versions: must be 1 or more"):
        apply_instructions(target, ["a"], backup_max_versions=0)
    assert not target.path.exists() and not target.backups.exists()
