"""`onlooker doctor` reports the spool, errors, store and hooks; it can replay the spool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hook_runner import ONLOOKER, run_hook

from onlooker import ToolCall


def doctor(*args: str) -> tuple[int, dict[str, object]]:
    """`onlooker doctor --json` with no `onlooker` on PATH (none to take over from a launcher)."""
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [ONLOOKER, "doctor", "--json", *args], capture_output=True, text=True, timeout=60, env=env
    )
    return done.returncode, json.loads(done.stdout)


def prompt(cwd: Path, text: str) -> dict[str, str]:
    return {
        "session_id": "s-doc",
        "transcript_path": "/t.jsonl",
        "cwd": str(cwd),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def test_healthy_after_ordinary_hooks(tmp_path: Path) -> None:
    assert run_hook(prompt(tmp_path, "hello")).returncode == 0
    code, report = doctor()
    assert code == 0 and report["healthy"] is True
    assert report["service"]["running"] is True  # type: ignore[index]
    assert report["store"]["ok"] is True  # type: ignore[index]


def test_garbage_is_refused_listed_never_replayed_and_can_be_discarded(tmp_path: Path) -> None:
    run_hook(None, raw=b"{not json")
    code, report = doctor()
    assert code == 1 and report["healthy"] is False
    assert report["spool"] == []  # nothing to replay: it can never go through
    refused = report["refused"]
    assert isinstance(refused, list) and len(refused) == 1
    assert "not JSON" in refused[0]["reason"]
    assert any("spooled a hook input" in line for line in report["recent_errors"])  # type: ignore[union-attr]
    code, report = doctor("--replay-spool")
    assert report["replay"] == {"replayed": 0, "refused": 0}
    assert len(report["refused"]) == 1  # type: ignore[arg-type]
    code, report = doctor("--discard-spool")
    assert report["discarded"] == 1 and report["refused"] == [] and code == 0


def test_a_service_that_cannot_start_fails_open_and_replay_recovers(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (onlooker_home / "run" / "hookd.sock").mkdir(parents=True)  # the service cannot bind its socket
    monkeypatch.setenv("ONLOOKER_HOOK_START_TIMEOUT", "1")
    done = run_hook(prompt(tmp_path, "kept for later"))
    assert (done.returncode, done.stdout) == (0, b"")
    code, report = doctor()
    assert code == 1 and len(report["spool"]) == 1  # type: ignore[arg-type]
    (onlooker_home / "run" / "hookd.sock").rmdir()
    code, report = doctor("--replay-spool")
    assert report["replay"] == {"replayed": 1, "refused": 0}
    assert code == 0 and report["spool"] == []
    journal = next((onlooker_home / "journals").rglob("s-doc.jsonl")).read_text()
    assert "kept for later" in journal


def test_human_report(tmp_path: Path) -> None:
    run_hook(prompt(tmp_path, "hello"))
    done = subprocess.run([ONLOOKER, "doctor"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "onlooker doctor: ok" in done.stdout and "hook service   running" in done.stdout


def install(*args: str) -> None:
    done = subprocess.run(
        [ONLOOKER, "install", "claude-code", *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_a_hook_command_that_cannot_run_is_found(tmp_path: Path, onlooker_home: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    install("--project", str(project))
    code, report = doctor("--project", str(project))
    assert code == 0 and report["cannot_run"] == []

    settings = project / ".claude" / "settings.local.json"
    launcher = onlooker_home / "bin" / "onlooker"
    moved = str(tmp_path / "moved-venv" / "bin" / "python")
    launcher.write_text(launcher.read_text().replace(sys.executable, moved))
    code, report = doctor("--project", str(project))
    assert code == 1 and report["healthy"] is False
    problem, server = report["cannot_run"]  # type: ignore[misc]
    assert server["what"].endswith("mcpServers.onlooker") and moved in server["problem"]
    assert problem["file"] == str(settings) and str(launcher) in problem["what"]
    assert problem["problem"].startswith(f"{moved}, which the launcher names, is gone")
    assert "pipx install onlooker" in problem["problem"]
    assert "UserPromptSubmit" in problem["events"]
    human = subprocess.run([ONLOOKER, "doctor", "--project", str(project)], capture_output=True,
                           text=True, env={**os.environ, "PATH": str(Path(ONLOOKER).parent)})  # fmt: skip
    assert human.returncode == 0, human.stdout  # an `onlooker` on PATH takes over: it runs


def test_a_plugin_with_no_onlooker_to_run_is_found(tmp_path: Path, onlooker_home: Path) -> None:
    plugin = tmp_path / "plugin"
    install("--plugin", str(plugin), "--no-mcp")
    code, report = doctor("--project", str(tmp_path))
    assert code == 0, report
    (onlooker_home / "bin" / "onlooker").unlink()  # the launcher its finder runs is gone
    code, report = doctor("--project", str(tmp_path))
    assert code == 1
    (problem,) = report["cannot_run"]  # type: ignore[misc]
    assert problem["file"] == str(plugin / "hooks" / "hooks.json")
    assert "no onlooker is installed on this machine" in problem["problem"]
    human = subprocess.run([ONLOOKER, "doctor", "--project", str(tmp_path)], capture_output=True,
                           text=True, env={**os.environ, "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert "CANNOT RUN" in human.stdout and "pipx install onlooker" in human.stdout


def test_the_installed_command_keeps_an_input_it_could_not_hand_over(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run by path (as the installed hooks run it), the client spools the input redacted."""
    project = tmp_path / "app"
    project.mkdir()
    install("--project", str(project), "--no-mcp")
    settings = json.loads((project / ".claude" / "settings.local.json").read_text())
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    (onlooker_home / "run" / "hookd.sock").mkdir(parents=True)  # the service cannot bind
    monkeypatch.setenv("ONLOOKER_HOOK_START_TIMEOUT", "1")
    secret = "sk-ant-api03-" + "x" * 40
    payload = json.dumps(prompt(project, f"kept for later with {secret}"))
    done = subprocess.run(command, shell=True, input=payload, capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "")
    (kept,) = (onlooker_home / "spool").glob("*.hook")
    assert "kept for later" in kept.read_text() and secret not in kept.read_text()
    (onlooker_home / "run" / "hookd.sock").rmdir()
    code, report = doctor("--replay-spool", "--project", str(project))
    assert report["replay"] == {"replayed": 1, "refused": 0} and code == 0


def test_the_job_queue_shows_its_backlog_failures_and_a_stuck_queue(
    onlooker_home: Path,
) -> None:
    """Jobs never pile up unnoticed: doctor shows what waits, for how long, and what failed."""
    from datetime import UTC, datetime, timedelta

    from onlooker import FixedClock
    from onlooker.store import Store

    clock = FixedClock(datetime.now(UTC))  # doctor reads the system clock
    with Store(onlooker_home, clock=clock) as store:
        store.enqueue("memory.extract", {}, project="p", session_id="s1")
        store.enqueue("memory.extract", {}, project="p", session_id="s2")
        job = store.jobs.claim("host:1")
        assert job is not None
        store.jobs.fail(job, "ProviderSetupError: pip install 'onlooker[local]'", retry=False)
    code, report = doctor()
    assert code == 1 and report["healthy"] is False  # a job failed for good
    jobs = report["store"]["jobs"]  # type: ignore[index]
    assert (jobs["queued"], jobs["failed"]) == (1, 1)  # type: ignore[index]
    assert "onlooker[local]" in jobs["latest_failures"][0]["error"]  # type: ignore[index]
    assert jobs["stuck"] is False  # type: ignore[index]
    text = subprocess.run([ONLOOKER, "doctor"], capture_output=True, text=True, timeout=60)
    assert "1 queued, 0 running" in text.stdout and "ProviderSetupError" in text.stdout
    with Store(onlooker_home, clock=FixedClock(clock.now() - timedelta(hours=1))) as store:
        store.enqueue("memory.extract", {}, project="p", session_id="s3")
    code, report = doctor()
    assert code == 1 and report["store"]["jobs"]["stuck"] is True  # type: ignore[index]


def test_the_service_replays_the_spool_when_idle_and_records_each_call_once(
    tmp_path: Path, onlooker_home: Path
) -> None:
    """An input the client spooled (the service was down) reaches the journal without anyone
    running doctor; one that was journaled already before it was spooled is not recorded twice."""
    from onlooker.store import Store

    call = {"session_id": "s-spool", "transcript_path": "/t.jsonl", "cwd": str(tmp_path),
            "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_1",
            "tool_input": {"command": "make"}, "tool_response": "ok"}  # fmt: skip
    assert run_hook(call).returncode == 0  # journaled, then spooled as if the client gave up
    spool = onlooker_home / "spool"
    spool.mkdir(exist_ok=True)
    (spool / "1-1-a.hook").write_bytes(b"# timed out\n" + json.dumps(call).encode())
    later = {**call, "tool_use_id": "toolu_2", "tool_input": {"command": "make test"}}
    (spool / "2-1-b.hook").write_bytes(b"# timed out\n" + json.dumps(later).encode())
    deadline = time.monotonic() + 20
    while list(spool.glob("*.hook")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not list(spool.glob("*.hook"))
    with Store(onlooker_home) as store:
        session = store.load_session("s-spool")
    assert session is not None
    assert [c.call_id for c in session[ToolCall].all()] == ["toolu_1", "toolu_2"]


def test_a_scoring_run_that_failed_makes_doctor_need_attention(tmp_path: Path) -> None:
    from onlooker.store import Store

    with Store() as store:
        store.record_observer_run(
            "Session Scorer", session_id="s1", project="app", status="error",
            error="ConfigError: no model for scoring",
        )  # fmt: skip
    code, report = doctor()
    assert code == 1 and report["healthy"] is False
    runs = report["store"]["run_errors"]  # type: ignore[index]
    assert runs["recent"] == 1 and runs["latest"][0]["observer"] == "Session Scorer"
    text = subprocess.run([ONLOOKER, "doctor"], capture_output=True, text=True, timeout=60)
    assert text.stdout.startswith("onlooker doctor: needs attention")
    assert "Session Scorer: ConfigError: no model for scoring" in text.stdout
