"""The command `onlooker install claude-code` writes runs and answers like `onlooker hook`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hook_runner import ONLOOKER


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
    assert "[Trajectory Assessment - Stall]" in answers[3]
