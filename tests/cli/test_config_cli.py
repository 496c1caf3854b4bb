"""`onlooker config validate|show`, doctor's config entry and `replay --config`, as real commands."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "config"
DEMO = ROOT / "examples" / "transcripts" / "flaky-tests.jsonl"
ONLOOKER = Path(sys.executable).with_name("onlooker")


def onlooker(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ONLOOKER), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


BAD = """\
behaviors:
  - module: hooks-observations
    config:
      execution:
        max_concurrent: ten
      observers:
        - name: Reviewer
          role: r
          focus: f
          model: local:smollm2
          watch:
            - type: filez
              paths: [src]
"""


def test_validate_reports_every_problem_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "onlooker.yaml"
    path.write_text(BAD)
    done = onlooker("config", "validate", path)
    assert done.returncode == 1
    assert (
        f"{path}:5: behaviors[0].config.execution.max_concurrent: must be a whole number"
        in done.stdout
    )
    assert (
        f"{path}:12: behaviors[0].config.observers[0].watch[0].type: 'filez' is not allowed (did you mean 'files'?)"
        in done.stdout
    )
    done = onlooker("config", "validate", "--json", cwd=tmp_path)
    data = json.loads(done.stdout)
    assert done.returncode == 1 and data["valid"] is False and data["file"] == str(path)
    assert [(p["line"], p["key"]) for p in data["problems"]] == [
        (5, "behaviors[0].config.execution.max_concurrent"),
        (12, "behaviors[0].config.observers[0].watch[0].type"),
    ]


def test_a_bad_deadline_does_not_hide_an_unknown_observer(tmp_path: Path) -> None:
    path = tmp_path / "onlooker.yaml"
    path.write_text("trajectory:\n  deadline_minutes: -5\n  observers:\n    stal: true\n")
    done = onlooker("config", "validate", "--json", path)
    data = json.loads(done.stdout)
    assert done.returncode == 1
    assert [(p["line"], p["key"]) for p in data["problems"]] == [
        (2, "trajectory.deadline_minutes"),
        (4, "trajectory.observers.stal"),
    ]


def test_validate_accepts_the_examples_and_a_project_without_config(tmp_path: Path) -> None:
    done = onlooker("config", "validate", EXAMPLES / "complete.yaml")
    assert done.returncode == 0 and "ok (3 reviewers, execution parallel" in done.stdout
    (tmp_path / ".git").mkdir()
    done = onlooker("config", "validate", "--json", tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["file"] is None
    done = onlooker("config", "validate", tmp_path / "missing.yaml")
    assert done.returncode == 2 and "does not exist" in done.stderr


def test_show_prints_the_effective_config_with_defaults(tmp_path: Path) -> None:
    config = tmp_path / ".onlooker" / "config.yaml"
    config.parent.mkdir()
    config.write_text((EXAMPLES / "pattern1-single-observer.yaml").read_text())
    done = onlooker("config", "show", "--json", cwd=tmp_path)
    data = json.loads(done.stdout)
    assert done.returncode == 0 and data["file"] == str(config)
    assert data["execution"] == {
        "mode": "background",
        "max_concurrent": 5,
        "timeout_per_observer": 30.0,
        "on_timeout": "skip",
    }
    [reviewer] = data["observers"]
    assert reviewer["model"] == "anthropic:claude-3-5-sonnet" and reviewer["timeout"] == 30.0
    assert reviewer["watch"] == [{"type": "files", "paths": ["src/**/*.py"]}]
    assert data["trajectory"]["observers"]["Stall"]["window"] == 20
    done = onlooker("config", "show", cwd=tmp_path)
    assert done.stdout.startswith(f"# {config}\n") and "max_concurrent: 5" in done.stdout
    config.write_text(BAD)
    done = onlooker("config", "show", cwd=tmp_path)
    assert done.returncode == 1 and "2 problems" in done.stderr


def test_doctor_flags_an_invalid_config(tmp_path: Path) -> None:
    (tmp_path / "onlooker.yaml").write_text(BAD)
    done = onlooker("doctor", "--json", "--project", tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["healthy"] is False
    assert report["config"]["valid"] is False and len(report["config"]["problems"]) == 2
    done = onlooker("doctor", "--project", tmp_path)
    assert (
        f"config         PROBLEMS in {tmp_path / 'onlooker.yaml'}; these sections use"
        in done.stdout
    )
    assert ":5: behaviors[0].config.execution.max_concurrent" in done.stdout


def test_replay_uses_a_configs_trajectory_options(tmp_path: Path) -> None:
    plain = json.loads(onlooker("replay", "--json", DEMO).stdout)[0]
    assert "Stall" in {a["observer"] for a in plain["assessments"]}
    config = tmp_path / "onlooker.yaml"
    config.write_text("trajectory:\n  deadline_minutes: 20\n  observers:\n    stall: false\n")
    configured = json.loads(onlooker("replay", "--json", "--config", config, DEMO).stdout)[0]
    names = {a["observer"] for a in configured["assessments"]}
    assert "Stall" not in names and "Deadline" in names
    config.write_text("trajectory:\n  observers:\n    stal: false\n")
    done = onlooker("replay", "--config", config, DEMO)
    assert done.returncode == 2 and "did you mean 'stall'" in done.stderr


def display_config(style: str, show_on_create: str = "true") -> str:
    return (
        "behaviors:\n  - module: hooks-observations-display\n"
        f"    config: {{style: {style}, show_on_create: {show_on_create}}}\n"
    )


def test_status_and_notices_follow_the_configured_display(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    add = ("observations", "add", "--observer", "Sec", "--severity", "high")
    done = onlooker(*add, "SQL built by string formatting", cwd=tmp_path)
    assert "SQL built by string formatting" in done.stdout  # show_on_create by default
    (tmp_path / "onlooker.yaml").write_text(display_config("compact", "false"))
    done = onlooker(*add, "Shell command built from user input", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == ""
    done = onlooker("status", cwd=tmp_path)
    assert done.stdout.strip() == f"{tmp_path.name}: 2 open (2 high) · 0 acknowledged · 0 resolved"
    assert "addressed" in onlooker("status", "--style", "progress_bar", cwd=tmp_path).stdout
    (tmp_path / "onlooker.yaml").write_text(display_config("compakt"))
    done = onlooker("status", cwd=tmp_path)
    assert "addressed" in done.stdout and "did you mean 'compact'" in done.stderr
