"""The command `onlooker install claude-code` writes runs and answers like `onlooker hook`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hook_runner import ONLOOKER

import onlooker


def test_installed_command_answers_a_hook(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    subprocess.run(
        [ONLOOKER, "install", "claude-code", "--project", str(project)],
        check=True,
        capture_output=True,
    )
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    command = settings["hooks"]["PostToolUseFailure"][0]["hooks"][0]["command"]
    answers = []
    for n in range(5):
        payload = {
            "session_id": "s-installed", "transcript_path": "/t.jsonl", "cwd": str(project),
            "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": f"t{n}",
            "tool_input": {"command": "make check"}, "error": "Exit code 2\nmake: *** [check] Error 2",
        }  # fmt: skip
        done = subprocess.run(
            command,
            shell=True,
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        answers.append(done.stdout)
    assert "[Trajectory Assessment - Stall" in answers[3]


def test_a_hook_installed_by_an_earlier_version_still_answers_and_install_moves_it(
    tmp_path: Path,
) -> None:
    """Earlier installs wrote `.../onlooker/hook/entry.py` into settings.json; that file still
    runs the client, and installing again moves the entry, as the current one, to
    settings.local.json instead of adding a second."""
    project = tmp_path / "app"
    (project / ".claude").mkdir(parents=True)
    old_entry = Path(onlooker.__file__).parent / "hook" / "entry.py"
    old_command = f"{sys.executable} -I -S {old_entry}"
    hooks = {"PostToolUseFailure": [{"matcher": "*", "hooks": [
        {"type": "command", "command": old_command, "timeout": 30}]}]}  # fmt: skip
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    answers = []
    for n in range(5):
        payload = {
            "session_id": "s-old", "transcript_path": "/t.jsonl", "cwd": str(project),
            "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": f"t{n}",
            "tool_input": {"command": "make check"}, "error": "Exit code 2\nmake: *** [check] Error 2",
        }  # fmt: skip
        done = subprocess.run(
            old_command, shell=True, input=json.dumps(payload), capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        answers.append(done.stdout)
    assert "[Trajectory Assessment - Stall" in answers[3]

    subprocess.run(
        [ONLOOKER, "install", "claude-code", "--project", str(project)],
        check=True,
        capture_output=True,
    )
    committed = json.loads((project / ".claude" / "settings.json").read_text())
    assert "PostToolUseFailure" not in committed.get("hooks", {})  # moved out of the team's file
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    commands = [
        hook["command"] for group in local["hooks"]["PostToolUseFailure"] for hook in group["hooks"]
    ]
    assert len(commands) == 1 and commands[0].endswith("/bin/onlooker hook || true")
    assert "onlooker/daemon/entry.py" in Path(commands[0].split()[0]).read_text()  # the launcher
