"""Claude Code itself, headless (`claude -p`), with the hooks `onlooker install claude-code` writes.

The CLI is the one bundled in claude-agent-sdk; it talks to the scripted Messages API on 127.0.0.1
(`messages_api.py`), so the real `onlooker hook` command runs inside a real agent loop with no
network and no paid model. Everything the CLI and onlooker write stays in the test's tmp dir.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from messages_api import MessagesAPI, ToolUse, bundled_cli, cli_env, message_texts, tool_results

from onlooker.daemon.hookd import running_pid

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
STALL = "[Trajectory Assessment - Stall]"
FAILING = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})


@pytest.fixture
def claude() -> Path:
    return bundled_cli()


@pytest.fixture
def project(tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project with onlooker's hooks installed; the hook service is stopped afterwards."""
    monkeypatch.setenv("ONLOOKER_HOOKD_IDLE", "30")
    folder = tmp_path / "shop"
    folder.mkdir()
    subprocess.run(
        [ONLOOKER, "install", "claude-code", "--scope", "project", "--project", str(folder)],
        check=True,
        capture_output=True,
    )
    yield folder
    pid = running_pid(onlooker_home)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while running_pid(onlooker_home) is not None and time.monotonic() < deadline:
            time.sleep(0.02)


def headless(claude: Path, project: Path, api: MessagesAPI, args: Sequence[str]) -> dict[str, Any]:
    """Run `claude -p ...` in the project against `api`; its JSON result."""
    env = {**os.environ, **cli_env(api, project.parent)}
    command = [str(claude), "-p", *args, "--output-format", "json", "--allowedTools", "Bash"]
    done = subprocess.run(
        [*command, "--model", "claude-sonnet-4-5"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["is_error"] is False, result
    return result


@pytest.mark.slow
def test_the_installed_hooks_bring_the_stall_warning_into_claude_codes_next_request(
    claude: Path, project: Path, onlooker_home: Path
) -> None:
    with MessagesAPI([FAILING] * 5) as api:
        first = headless(claude, project, api, ["Read the plan and follow it."])

    results = [list(tool_results(body))[-1][1] for body in api.turns[1:6]]
    assert all("cat: notes/plan.txt: No such file or directory" in r for r in results)
    assert [STALL in r for r in results] == [False, False, False, True, False]
    assert "PostToolUseFailure:Bash hook additional context: " + STALL in results[3]
    assert "failed with the same error 4 times (calls 1, 2, 3, 4)" in results[3]
    journal = onlooker_home / "journals" / "shop" / f"{first['session_id']}.jsonl"
    kinds = [json.loads(line)["kind"] for line in journal.read_text().splitlines()]
    assert kinds.count("tool_call") == 5 and "turn_ended" in kinds

    # The session resumed with a new prompt: the open findings come with it.
    with MessagesAPI([]) as api:
        headless(claude, project, api, ["--resume", first["session_id"], "What now?"])

    prompt = message_texts(api.turns[0])[-1]
    assert "UserPromptSubmit hook additional context: <observations>" in prompt
    assert "**Stall**" in prompt and "What now?" in prompt
