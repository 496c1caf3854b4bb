"""Two checkouts that share a folder name are two projects, through the real hook command and CLI:
what one records never reaches the other's agent; a name names both only when it is unambiguous;
`install` from a subfolder writes at the root the store uses; reindex keeps the keys."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from hook_runner import ONLOOKER, answer

from onlooker.store import Store, project_for
from onlooker.store.identity import display_name, project_identity


def onlooker(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ONLOOKER, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def checkout(tmp_path: Path, where: str) -> Path:
    root = tmp_path / where / "api"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    return root


def prompt_context(cwd: Path, session: str, text: str) -> str:
    base: dict[str, Any] = {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl",
                            "cwd": str(cwd), "permission_mode": "default"}  # fmt: skip
    answer({**base, "hook_event_name": "SessionStart", "source": "startup"})
    reply = answer({**base, "hook_event_name": "UserPromptSubmit", "prompt": text})
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


def record_finding(cwd: Path, content: str) -> None:
    request = {"operation": "create_batch", "observations": [
        {"observer": "review", "content": content, "severity": "high"}]}  # fmt: skip
    done = onlooker("observations", "call", json.dumps(request), cwd=cwd)
    assert done.returncode == 0, done.stderr


def test_a_finding_of_one_api_checkout_never_reaches_the_other(
    tmp_path: Path, onlooker_home: Path
) -> None:
    first, second = checkout(tmp_path, "a"), checkout(tmp_path, "b")
    record_finding(first / "src", "The token hash in a/api still uses sha256.")
    assert "sha256" in prompt_context(first / "src", "s-first", "Go on with the hash change.")
    assert "sha256" not in prompt_context(second, "s-second", "Add a health endpoint.")
    keys = {project_for(first), project_for(second)}
    assert len(keys) == 2 and {display_name(k) for k in keys} == {"api"}
    with Store(onlooker_home) as store:
        assert store.project_keys() == [project_for(first)]
    journals = {p.name for p in (onlooker_home / "journals").iterdir()}
    assert keys <= journals


def test_a_name_shared_by_two_projects_is_refused_as_ambiguous(
    tmp_path: Path, onlooker_home: Path
) -> None:
    first, second = checkout(tmp_path, "a"), checkout(tmp_path, "b")
    record_finding(first, "Finding of a/api.")
    record_finding(second, "Finding of b/api.")
    done = onlooker("status", "--project", "api", "--json", cwd=tmp_path)
    assert done.returncode == 2
    assert "ambiguous" in done.stderr and project_for(first) in done.stderr, done.stderr
    by_key = onlooker("status", "--project", project_for(first), "--json", cwd=tmp_path)
    data = json.loads(by_key.stdout)
    assert data["count"] == 1 and data["project_name"] == "api"
    assert data["observations"][0]["content"] == "Finding of a/api."


def test_a_unique_name_still_names_its_project(tmp_path: Path, onlooker_home: Path) -> None:
    only = checkout(tmp_path, "a")
    record_finding(only, "The only api.")
    done = onlooker("status", "--project", "api", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["project"] == project_for(only)


def test_reindex_keeps_the_keys(tmp_path: Path, onlooker_home: Path) -> None:
    first, second = checkout(tmp_path, "a"), checkout(tmp_path, "b")
    prompt_context(first, "s-1", "One.")
    record_finding(first, "Finding of a/api.")
    record_finding(second, "Finding of b/api.")
    with Store(onlooker_home) as store:
        before = store.index.table_rows("findings")
    done = onlooker("reindex", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with Store(onlooker_home) as store:
        after = store.index.table_rows("findings")
    assert [row[2] for row in after] == [row[2] for row in before]
    assert {row[2] for row in after} == {project_for(first), project_for(second)}


def test_install_from_a_subfolder_writes_at_the_project_root(
    tmp_path: Path, onlooker_home: Path
) -> None:
    root = checkout(tmp_path, "a")
    done = onlooker("install", "claude-code", "--no-mcp", "--json", cwd=root / "src")
    assert done.returncode == 0, done.stderr
    assert (root / ".claude" / "settings.local.json").is_file()
    assert not (root / "src" / ".claude").exists()
    assert project_identity(root / "src").root == root.resolve()


def test_a_worktree_is_its_own_project_with_the_repository_shared_key(tmp_path: Path) -> None:
    main = tmp_path / "main"
    (main / ".git" / "worktrees" / "feature").mkdir(parents=True)
    (main / ".git" / "config").write_text(
        '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:Acme/API.git\n'
    )
    (main / ".git" / "worktrees" / "feature" / "commondir").write_text("../..\n")
    feature = tmp_path / "feature"
    feature.mkdir()
    (feature / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'feature'}\n")
    ours, theirs = project_identity(feature / "."), project_identity(main)
    assert ours.root == feature.resolve() and ours.key != theirs.key
    assert ours.shared_key == theirs.shared_key == "github.com/acme/api"
    assert project_identity(tmp_path / "elsewhere").shared_key is None
