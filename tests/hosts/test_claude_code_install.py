"""`onlooker install claude-code`: merged with a backup, idempotent, undone exactly; the committed
settings file gets nothing that names this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from onlooker.hosts.claude_code.hook_input import HOOK_EVENTS
from onlooker.hosts.claude_code.install import installed_hooks

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))

ORIGINAL = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test)"]},
    "hooks": {
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write"}]}]
    }
}
"""


def onlooker(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ONLOOKER, *args], capture_output=True, text=True, timeout=60, cwd=cwd)


def project_with_settings(
    tmp_path: Path, text: str | None = ORIGINAL, name: str = "settings.local.json"
) -> Path:
    project = tmp_path / "app"
    (project / ".claude").mkdir(parents=True)
    if text is not None:
        (project / ".claude" / name).write_text(text)
    return project


def local_settings(project: Path) -> Path:
    return project / ".claude" / "settings.local.json"


def test_install_merges_keeps_other_hooks_and_backs_up(tmp_path: Path, onlooker_home: Path) -> None:
    project = project_with_settings(tmp_path)
    done = onlooker("install", "claude-code", "--project", str(project), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    settings = json.loads(local_settings(project).read_text())
    assert settings["model"] == "opus" and settings["permissions"] == {"allow": ["Bash(npm test)"]}
    post = settings["hooks"]["PostToolUse"]
    assert post[0] == {
        "matcher": "Edit|Write",
        "hooks": [{"type": "command", "command": "prettier --write"}],
    }
    launcher = onlooker_home / "bin" / "onlooker"  # a stable command, not a virtualenv's path
    assert post[1]["hooks"][0]["command"] == f"{launcher} hook || true"
    assert "onlooker/daemon/entry.py" in launcher.read_text()
    assert sys.executable not in local_settings(project).read_text()
    assert set(installed_hooks(local_settings(project))) == set(HOOK_EVENTS)
    assert Path(report["backup"]).read_text() == ORIGINAL
    assert Path(report["backup"]).is_relative_to(onlooker_home)


def test_install_twice_changes_nothing(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path)
    onlooker("install", "claude-code", "--project", str(project))
    first = local_settings(project).read_text()
    again = onlooker("install", "claude-code", "--project", str(project), "--json")
    assert json.loads(again.stdout)["changed"] is False
    assert local_settings(project).read_text() == first


def test_uninstall_restores_the_file_byte_for_byte(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path)
    onlooker("install", "claude-code", "--project", str(project))
    onlooker("install", "claude-code", "--project", str(project))
    done = onlooker("uninstall", "claude-code", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert local_settings(project).read_text() == ORIGINAL


def test_uninstall_keeps_changes_made_after_install(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path)
    path = local_settings(project)
    onlooker("install", "claude-code", "--project", str(project))
    data = json.loads(path.read_text())
    data["theme"] = "dark"
    path.write_text(json.dumps(data))
    onlooker("uninstall", "claude-code", "--project", str(project))
    after = json.loads(path.read_text())
    assert after == {**json.loads(ORIGINAL), "theme": "dark"}


def test_install_into_a_project_without_settings_and_back(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, text=None)
    onlooker("install", "claude-code", "--project", str(project), "--scope", "local")
    local = project / ".claude" / "settings.local.json"
    assert set(installed_hooks(local)) == set(HOOK_EVENTS)
    onlooker("uninstall", "claude-code", "--project", str(project), "--scope", "local")
    assert not local.exists()


def test_dry_run_writes_nothing_and_shows_only_the_keys_it_changes(
    tmp_path: Path, onlooker_home: Path
) -> None:
    project = project_with_settings(tmp_path)
    user_config = tmp_path / "claude-config" / ".claude.json"
    user_config.parent.mkdir(parents=True)
    account = {"oauthAccount": {"accountUuid": "acct-7f3e"}, "userID": "user-51c2"}
    user_config.write_text(json.dumps({**account, "projects": {str(project): {"history": []}}}))
    before = user_config.read_text()
    done = onlooker("install", "claude-code", "--project", str(project), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert local_settings(project).read_text() == ORIGINAL
    assert user_config.read_text() == before
    assert not (onlooker_home / "backups").exists() and not (onlooker_home / "bin").exists()
    assert "acct-7f3e" not in done.stdout and "user-51c2" not in done.stdout  # never the rest
    assert "prettier" not in done.stdout  # the settings' own hooks are not shown either
    lines = done.stdout.splitlines()
    assert f"Would change {user_config}:" in lines
    assert f'  + projects["{project}"].mcpServers.onlooker: ' in done.stdout
    assert "  + hooks.PostToolUse[1]: " in done.stdout  # appended after the team's own hook
    assert "  + hooks.Stop: " in done.stdout


def test_broken_settings_file_is_named_and_left_alone(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, text='{"hooks": [1,')
    done = onlooker("install", "claude-code", "--project", str(project))
    assert done.returncode != 0
    assert str(local_settings(project)) in done.stderr and "not valid JSON" in done.stderr
    assert local_settings(project).read_text() == '{"hooks": [1,'


def test_the_committed_settings_file_gets_nothing_of_this_machine(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, name="settings.json")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    done = onlooker("install", "claude-code", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert (project / ".claude" / "settings.json").read_text() == ORIGINAL
    assert sys.executable not in (project / ".claude" / "settings.json").read_text()
    assert set(installed_hooks(local_settings(project))) == set(HOOK_EVENTS)
    assert "settings.local.json names paths of this machine, so it is not committed" in done.stdout
    assert "git did not ignore .claude/settings.local.json: added it to" in done.stdout
    again = onlooker("install", "claude-code", "--project", str(project))
    assert "git did not ignore" not in again.stdout


def test_hooks_an_earlier_install_put_into_the_committed_file_move_out(tmp_path: Path) -> None:
    earlier = json.loads(ORIGINAL)
    old = "/old/venv/bin/python -I -S /old/site-packages/onlooker/hook/entry.py"
    earlier["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": old}]}]
    project = project_with_settings(tmp_path, json.dumps(earlier), name="settings.json")
    done = onlooker("install", "claude-code", "--project", str(project))
    assert done.returncode == 0, done.stderr
    assert "moved onlooker's hooks out of" in done.stdout
    assert json.loads((project / ".claude" / "settings.json").read_text()) == json.loads(ORIGINAL)
    assert set(installed_hooks(local_settings(project))) == set(HOOK_EVENTS)


def test_the_hook_command_fails_open_even_when_python_is_gone(tmp_path: Path) -> None:
    """Python exits 2 on a script it cannot open, and Claude Code takes exit 2 as a block."""
    project = project_with_settings(tmp_path, text=None)
    onlooker("install", "claude-code", "--project", str(project))
    settings = json.loads(local_settings(project).read_text())
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    launcher = Path(command.split()[0])
    launcher.write_text(launcher.read_text().replace(sys.executable, str(tmp_path / "gone")))
    done = subprocess.run(command, shell=True, input="{}", capture_output=True, text=True,
                          env={**os.environ, "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert done.returncode == 0 and "onlooker's hooks cannot run" in done.stdout
    for broken in (
        command.replace(str(launcher), str(tmp_path / "gone" / "onlooker")),
        command.replace(str(launcher), str(launcher.parent)),  # not executable
    ):
        done = subprocess.run(broken, shell=True, input="{}", capture_output=True, text=True)
        assert (done.returncode, done.stdout) == (0, "")


def git(project: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(project), *args], capture_output=True, text=True,
                          check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"})  # fmt: skip
    return done.stdout


def test_a_fresh_repository_never_sees_the_local_settings_and_uninstall_leaves_no_trace(
    tmp_path: Path,
) -> None:
    project = tmp_path / "fresh"
    project.mkdir()
    git(project, "init", "-q")
    exclude = project / ".git" / "info" / "exclude"
    before = exclude.read_text()
    done = onlooker("install", "claude-code", "--no-mcp", cwd=project)
    assert done.returncode == 0, done.stderr
    assert f"added it to {exclude}" in done.stdout
    assert "/.claude/settings.local.json" in exclude.read_text()
    assert git(project, "status", "--porcelain", "--untracked-files=all") == ""  # nothing to commit
    again = onlooker("install", "claude-code", "--no-mcp", cwd=project)
    assert "added it to" not in again.stdout and exclude.read_text().count("settings.local") == 1

    removed = onlooker("uninstall", "claude-code", "--no-mcp", cwd=project)
    assert removed.returncode == 0, removed.stderr
    assert exclude.read_text() == before
    assert not (project / ".claude").exists()  # the folder install created, left empty, is gone
    assert sorted(p.name for p in project.iterdir()) == [".git"]


def test_uninstall_keeps_a_claude_folder_that_was_there(tmp_path: Path) -> None:
    project = project_with_settings(tmp_path, text=None)
    assert onlooker("install", "claude-code", "--no-mcp", cwd=project).returncode == 0
    assert onlooker("uninstall", "claude-code", "--no-mcp", cwd=project).returncode == 0
    assert (project / ".claude").is_dir() and not any((project / ".claude").iterdir())
