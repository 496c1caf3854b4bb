"""The installed hook command (`python -I -S …/daemon/entry.py`) keeps what it could not hand
over in the spool, redacted, whichever way the service failed; a hook that is answered loads no
redaction code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import onlooker

ENTRY = Path(onlooker.__file__).parent / "daemon" / "entry.py"
STAND_IN = Path(__file__).with_name("stand_in_service.py")
DROPPED = b"[input dropped: it could not be redacted]"
SECRETS = (
    "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "Zq8v!mR2pL",
    "Ak91Lm2Zx8Qp",
    "T0p$ecret",
    "hunter2",
)
PAYLOAD: dict[str, Any] = {
    "session_id": "s-spool", "transcript_path": "/t.jsonl", "cwd": "/work/app",
    "hook_event_name": "PostToolUse", "tool_name": "mcp__db__query", "tool_use_id": "toolu_spool",
    "tool_input": {"connection": {"host": "db", "api_key": "Ak91Lm2Zx8Qp"},
                   "script": "DB_PASS=Zq8v!mR2pL\nmysql -u root -pT0p$ecret shop"},
    "tool_response": "token ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789; my password is hunter2",
}  # fmt: skip


def run_entry(home: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    """The command `onlooker install` writes, run as Claude Code runs it."""
    environment = {"PATH": os.environ["PATH"], "ONLOOKER_HOME": str(home), **env}
    return subprocess.run(
        [sys.executable, "-I", "-S", str(ENTRY)], input=json.dumps(PAYLOAD).encode(),
        capture_output=True, env=environment, timeout=60,
    )  # fmt: skip


def spooled(home: Path) -> tuple[str, dict[str, Any]]:
    """The one spooled input: its reason and the input as kept."""
    files = list((home / "spool").glob("*.hook"))
    assert len(files) == 1, files
    kept = files[0].read_bytes()
    assert DROPPED not in kept
    for secret in SECRETS:
        assert secret.encode() not in kept, secret
    reason, _, body = kept.partition(b"\n")
    return reason.decode(), json.loads(body)


def assert_redacted(data: dict[str, Any]) -> None:
    assert data["tool_name"] == "mcp__db__query" and data["tool_use_id"] == "toolu_spool"
    assert data["tool_input"]["connection"] == {"host": "db", "api_key": "[REDACTED:secret_field]"}
    assert data["tool_input"]["script"] == (
        "DB_PASS=[REDACTED:assignment]\nmysql -u root -p[REDACTED:cli_password] shop"
    )
    assert data["tool_response"] == (
        "token [REDACTED:github_token]; my password is [REDACTED:stated_password]"
    )


@contextmanager
def stand_in(home: Path, mode: str) -> Iterator[None]:
    (home / "run").mkdir(parents=True)
    with subprocess.Popen(
        [sys.executable, str(STAND_IN), str(home), mode], stdout=subprocess.PIPE, text=True
    ) as service:
        try:
            assert service.stdout is not None and service.stdout.readline().strip() == "ready"
            yield
        finally:
            service.kill()


def test_a_service_that_cannot_start(onlooker_home: Path) -> None:
    """No service runs and none can be started (its log folder cannot be made)."""
    onlooker_home.mkdir()
    (onlooker_home / "logs").write_text("a file where the log folder should be")
    done = run_entry(onlooker_home)
    assert (done.returncode, done.stdout) == (0, b"")
    reason, data = spooled(onlooker_home)
    assert reason.startswith("# FileExistsError")
    assert_redacted(data)


def test_a_service_that_does_not_answer_in_time(onlooker_home: Path) -> None:
    with stand_in(onlooker_home, "silent"):
        done = run_entry(onlooker_home, ONLOOKER_HOOK_TIMEOUT="0.5")
    assert (done.returncode, done.stdout) == (0, b"")
    reason, data = spooled(onlooker_home)
    assert reason == "# TimeoutError: timed out"
    assert_redacted(data)


def test_a_service_that_dies_mid_answer(onlooker_home: Path) -> None:
    """The connection is reset before an answer, and again after the client started a service
    (which found the stand-in's lock held and exited) and sent once more."""
    with stand_in(onlooker_home, "reset"):
        done = run_entry(onlooker_home, ONLOOKER_HOOK_START_TIMEOUT="5")
    assert (done.returncode, done.stdout) == (0, b"")
    reason, data = spooled(onlooker_home)
    assert reason.startswith(("# ConnectionResetError", "# ConnectionError")), reason
    assert_redacted(data)


def test_an_answered_hook_loads_no_redaction_code(onlooker_home: Path) -> None:
    """Only a spooled input pays for loading the redaction modules: with the service up, the
    installed command imports nothing from onlooker's text folder (nor importlib's loaders)."""
    first = run_entry(onlooker_home)  # starts the service
    assert first.returncode == 0
    timed = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", str(ENTRY)],
        input=json.dumps(PAYLOAD).encode(), capture_output=True, timeout=60,
        env={"PATH": os.environ["PATH"], "ONLOOKER_HOME": str(onlooker_home)},
    )  # fmt: skip
    imported = [line.rpartition("|")[2].strip() for line in timed.stderr.decode().splitlines()]
    assert "client" in imported
    assert not [name for name in imported if "text" in name or name.startswith("importlib.")]
    assert not (onlooker_home / "spool").exists()
