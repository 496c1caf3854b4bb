"""`onlooker observer …` as real commands over a real data home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ONLOOKER = Path(sys.executable).with_name("onlooker")


def observer(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ONLOOKER_HOME": str(project.parent / "home")}
    return subprocess.run(
        [str(ONLOOKER), "observer", *args], capture_output=True, text=True, cwd=project,
        env=env, timeout=120, check=False,
    )  # fmt: skip


def test_without_a_model_status_says_how_to_turn_scoring_on(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    shown = observer(project, "status")
    assert shown.returncode == 0, shown.stderr
    assert "scoring:\n    model:" in shown.stdout
    data = json.loads(observer(project, "status", "--json").stdout)
    assert data["scoring"] is False and data["aggregate"]["total_sessions"] == 0
    refused = observer(project, "score")
    assert refused.returncode == 2 and "Session scoring is off" in refused.stderr


def test_steering_rejections_and_toggles_persist_between_commands(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "config.yaml").write_text(
        "scoring:\n  model: openai:gpt-4o-mini\n  detail_level: thorough\n"
    )
    assert observer(project, "steer", "favour", "small", "diffs").returncode == 0
    assert json.loads(observer(project, "steer", "--json").stdout) == {
        "guidance": "favour small diffs"
    }
    observer(project, "reject", "runs no tests")
    assert json.loads(observer(project, "rejections", "--json").stdout)["rejections"] == [
        "runs no tests"
    ]
    observer(project, "auto", "prompts", "on")
    config = json.loads(observer(project, "config", "--json").stdout)
    assert config["auto_update_agent_prompts"] is True and config["auto_update_agents_md"] is False
    assert config["settings"]["detail_level"] == "thorough" and config["active"] is True
    assert observer(project, "unreject", "no tests").returncode == 0
    assert json.loads(observer(project, "rejections", "--json").stdout)["rejections"] == []
    assert observer(project, "steer", "reset").stdout.strip() == "Guidance cleared."
    missing = observer(project, "accept", "1")
    assert missing.returncode == 2 and "no pending improvements" in missing.stderr
    assert "rollback [agent]" in observer(project, "help").stdout


def test_a_bad_scoring_section_names_the_field_and_file(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "config.yaml").write_text(
        "scoring:\n  detail_level: verbose\n  scoring_threshold: 3\n"
    )
    shown = observer(project, "status")
    assert shown.returncode == 2
    assert "config.yaml" in shown.stderr and "scoring.detail_level" in shown.stderr
    assert "scoring.scoring_threshold" in shown.stderr
