"""A config with a problem fails safe through the real `onlooker hook` command: only its section
takes the defaults, the rest runs, and the person is told once per session where and what."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hook_runner import make_project, stop_service

from onlooker.memory import Memories
from onlooker.store import Store, project_for

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
SESSION = "6a0f1c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"

TYPO = """\
trajectory:
  observers:
    error-cascade: {streak_warn: 2}
memory: {enabeld: true}
"""


def hook(
    project: Path, event: str, env: dict[str, str] | None = None, **fields: Any
) -> dict[str, Any]:
    data = {"session_id": SESSION, "transcript_path": "", "cwd": str(project),
            "hook_event_name": event, **fields}  # fmt: skip
    done = subprocess.run(
        [ONLOOKER, "hook"], input=json.dumps(data).encode(), capture_output=True, timeout=60,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def failures(project: Path, count: int, env: dict[str, str] | None = None) -> list[str]:
    said = []
    for n in range(count):
        answer = hook(
            project, "PostToolUseFailure", env, tool_name="Bash", tool_use_id=f"toolu_{n:03d}",
            tool_input={"command": f"make step{n}"}, error=f"step{n} broke in a new way {n * 7}",
        )  # fmt: skip
        said.append(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))
    return said


def test_a_typo_in_memory_leaves_the_observers_running_and_is_told_once(
    tmp_path: Path, onlooker_home: Path
) -> None:
    project = make_project(tmp_path, {".onlooker/config.yaml": TYPO})
    hook(project, "SessionStart", source="startup")
    first = hook(project, "UserPromptSubmit", prompt="build it")
    notice = first["systemMessage"]
    assert f"{project}/.onlooker/config.yaml:4: memory.enabeld: unknown key" in notice
    assert "did you mean 'enabled'?" in notice and "allowed: enabled, maxObservations" in notice
    assert "These sections use their defaults until fixed: memory; the rest runs." in notice
    said = failures(project, 3)
    # the trajectory section still runs as written: Error Cascade after 2 failures, not 4
    assert "Error Cascade" in said[1] or "Error Cascade" in said[2]
    again = hook(project, "UserPromptSubmit", prompt="go on")
    assert "systemMessage" not in again  # once per session
    # the memory section runs with its defaults (on): the calls were captured for extraction
    stop_service(onlooker_home)
    with Store(onlooker_home) as store:
        assert Memories(store).pending_count(project_for(project), SESSION) == 3


def test_a_config_fixed_then_broken_again_is_told_again(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"onlooker.yaml": "scoring: {enabeld: true}\n"})
    assert "scoring.enabeld" in hook(project, "UserPromptSubmit", prompt="a")["systemMessage"]
    (project / "onlooker.yaml").write_text("scoring: {enabled: false}\n")
    assert "systemMessage" not in hook(project, "UserPromptSubmit", prompt="b")
    (project / "onlooker.yaml").write_text("tools: [{module: tool-observationz}]\n")
    told = hook(project, "UserPromptSubmit", prompt="c")["systemMessage"]
    assert "onlooker.yaml:1: tools[0].module: 'tool-observationz' is not allowed" in told


def test_without_pyyaml_the_defaults_run_and_the_person_is_told(
    tmp_path: Path, onlooker_home: Path
) -> None:
    blocker = tmp_path / "no-yaml" / "yaml"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('No module named yaml')\n")
    env = {"PYTHONPATH": str(blocker.parent)}  # the service the hook starts cannot import yaml
    project = make_project(tmp_path, {".onlooker/config.yaml": TYPO})
    first = hook(project, "UserPromptSubmit", env, prompt="build it")
    notice = first["systemMessage"]
    assert "config.yaml: reading a config file needs PyYAML, which is not installed" in notice
    assert "pip install 'onlooker[config]'" in notice
    assert "onlooker runs with its defaults until the file is fixed." in notice
    said = failures(project, 5, env)
    assert any("Error Cascade" in text for text in said[3:])  # the default streak of 4
    assert not any("Error Cascade" in text for text in said[:3])
    installed = subprocess.run(
        [ONLOOKER, "install", "claude-code", "--no-mcp"], cwd=project, capture_output=True,
        text=True, timeout=120, env={**os.environ, **env},
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    assert "config.yaml: reading a config file needs PyYAML" in installed.stderr
    assert "warning: until it is fixed, sessions run with onlooker's defaults" in installed.stderr


@pytest.mark.parametrize("text", ["memory: [1, 2\n", "- just\n- a list\n"])
def test_a_file_that_is_not_a_config_runs_the_defaults(tmp_path: Path, text: str) -> None:
    project = make_project(tmp_path, {"onlooker.yaml": text})
    notice = hook(project, "UserPromptSubmit", prompt="x")["systemMessage"]
    assert "onlooker.yaml:" in notice and "runs with its defaults" in notice
    said = failures(project, 5)
    assert any("Error Cascade" in s for s in said)


def onlooker(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ONLOOKER, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_install_warns_and_doctor_lists_only_configs_still_wrong(
    tmp_path: Path, onlooker_home: Path
) -> None:
    shop = make_project(tmp_path, {".onlooker/config.yaml": TYPO})
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / "onlooker.yaml").write_text("scoring: {modle: 'local:smollm2'}\n")

    done = onlooker("install", "claude-code", "--project", str(shop), "--no-mcp")
    assert done.returncode == 0, done.stderr
    config = shop / ".onlooker" / "config.yaml"
    assert f"warning: {config}:4: memory.enabeld: unknown key" in done.stderr
    assert "warning: until it is fixed, these sections use their defaults: memory" in done.stderr
    assert "onlooker hooks installed in" in done.stdout
    clean = tmp_path / "clean"
    (clean / ".git").mkdir(parents=True)
    done = onlooker("install", "claude-code", "--project", str(clean), "--no-mcp")
    assert done.returncode == 0 and "warning" not in done.stderr

    for project in (shop, other):
        hook(project, "UserPromptSubmit", prompt="hello")
    report = json.loads(onlooker("doctor", "--json", "--project", str(shop)).stdout)
    assert report["healthy"] is False
    assert report["config"]["problems"] == [
        f"{config}:4: memory.enabeld: unknown key (did you mean 'enabled'?); allowed: "
        "enabled, maxObservations, maxTokens, recencyDays, projectOnly, model, sessionTokens, "
        "dailyTokens"
    ]
    assert report["config"]["defaulted"] == ["memory"]
    (listed,) = report["other_configs"]
    assert (
        listed["file"] == str(other / "onlooker.yaml") and "scoring.modle" in listed["problems"][0]
    )
    assert not any("config" in line for line in report["recent_errors"])

    # fixed files are no longer reported, though the service's log still names them
    (other / "onlooker.yaml").write_text("scoring: {model: 'local:smollm2'}\n")
    config.write_text("memory: {enabled: true}\n")
    done = onlooker("doctor", "--project", str(shop))
    assert "config.yaml" in (onlooker_home / "logs" / "hookd.log").read_text()
    assert "PROBLEMS" not in done.stdout and f"config         ok: {config}" in done.stdout
    assert done.returncode == 0, done.stdout
