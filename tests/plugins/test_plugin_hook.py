"""A third-party observer, installed as a package, speaks through the real `onlooker hook` and
`onlooker replay`; a plugin that fails never breaks a hook."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hook_runner import ONLOOKER, answer, make_project, run_hook

from onlooker import plugins

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "transcripts" / "flaky-tests.jsonl"
SECRETS = "trajectory:\n  observers:\n    secrets:\n      patterns: [.env, id_rsa]\n"


def read(root: Path, path: str, n: int, session: str = "s-plugin") -> dict[str, Any]:
    return {
        "session_id": session, "cwd": str(root), "hook_event_name": "PostToolUse",
        "tool_name": "Read", "tool_input": {"file_path": str(root / path)},
        "tool_response": {"type": "text"}, "tool_use_id": f"toolu_{n}",
    }  # fmt: skip


def context(payload: dict[str, Any]) -> str:
    return str(answer(payload).get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_an_installed_plugins_observer_speaks_through_the_hook(tmp_path: Path) -> None:
    root = make_project(tmp_path, {".onlooker/config.yaml": SECRETS, "src/app.py": "", ".env": ""})
    assert context(read(root, "src/app.py", 1)) == ""
    said = context(read(root, ".env", 2))
    assert "[Trajectory Assessment - Secret Files]" in said
    assert f"Read touched {root / '.env'}, a file that holds secrets." in said
    other = make_project(tmp_path / "other", {".env": ""})  # no config: the plugin stays quiet
    assert "Secret Files" not in context(read(other, ".env", 1, session="s-other"))


def test_the_hook_picks_up_a_plugin_named_once_the_config_changes(tmp_path: Path) -> None:
    root = make_project(tmp_path, {".onlooker/config.yaml": "trajectory: {}\n", ".env": ""})
    assert "Secret Files" not in context(read(root, ".env", 1))
    (root / ".onlooker" / "config.yaml").write_text(SECRETS + "    tool-tally: true\n")
    said = context(read(root, ".env", 2))
    assert "[Trajectory Assessment - Secret Files]" in said
    assert "[Trajectory Assessment - Tool Tally]" not in said  # every third call
    assert "2 tool calls so far." not in said
    assert "3 tool calls so far." in context(read(root, "x.py", 3))


BROKEN = "raise ImportError('this plugin needs a newer onlooker')\n"


def test_a_plugin_that_fails_to_load_never_breaks_a_hook_and_doctor_names_it(
    tmp_path: Path, write_package: Callable[..., Path]
) -> None:
    write_package("pkg-broken", BROKEN, {plugins.OBSERVERS: "register"})
    root = make_project(tmp_path, {".onlooker/config.yaml": SECRETS, ".env": ""})
    assert "[Trajectory Assessment - Secret Files]" in context(read(root, ".env", 1))
    (root / ".onlooker" / "config.yaml").write_text("trajectory:\n  observers:\n    broken: true\n")
    done = run_hook(read(root, ".env", 2))
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b""
    doctor = subprocess.run(
        [ONLOOKER, "doctor", "--json", "--project", str(root)], capture_output=True, text=True
    )
    report = json.loads(doctor.stdout)
    assert doctor.returncode == 1 and report["healthy"] is False
    (failed,) = [p for p in report["plugins"] if p["error"]]
    assert failed["package"] == "pkg-broken 1.0" and failed["group"] == "onlooker.observers"
    assert failed["error"] == "ImportError: this plugin needs a newer onlooker"
    (problem,) = report["config"]["problems"]
    assert "trajectory.observers.broken: unknown observer type" in problem
    assert "plugins that failed to load: pkg-broken 1.0 (pkg-broken = pkg_broken:register): " \
        "ImportError: this plugin needs a newer onlooker" in problem  # fmt: skip
    assert any("pkg-broken" in line for line in report["recent_errors"])


def test_replay_runs_a_plugins_observer_by_name_and_from_a_config(tmp_path: Path) -> None:
    done = subprocess.run(
        [ONLOOKER, "replay", str(DEMO), "--observer", "tool-tally", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    (session,) = json.loads(done.stdout)
    assert [a["call_index"] for a in session["assessments"]] == list(range(3, 43, 3))
    assert {a["observer"] for a in session["assessments"]} == {"Tool Tally"}
    config = tmp_path / "onlooker.yaml"
    config.write_text("trajectory:\n  observers:\n    secrets: {patterns: [backoff.py]}\n")
    done = subprocess.run(
        [ONLOOKER, "replay", str(DEMO), "--config", str(config), "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    (session,) = json.loads(done.stdout)
    found = [a for a in session["assessments"] if a["observer"] == "Secret Files"]
    assert [a["summary"] for a in found] == [
        "Read touched /home/dev/src/taskq/src/taskq/backoff.py, a file that holds secrets.",
        "Edit touched /home/dev/src/taskq/src/taskq/backoff.py, a file that holds secrets.",
    ]
    assert [a["severity"] for a in found] == ["medium", "high"]  # high from the second on
    injected = "\n".join(i["text"] for i in session["injections"])
    assert "[Trajectory Assessment - Secret Files]" in injected
    bad = subprocess.run(
        [ONLOOKER, "replay", str(DEMO), "--observer", "secret-filez"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert (
        "unknown observer 'secret-filez'" in bad.stderr and "secret-files or secrets" in bad.stderr
    )
