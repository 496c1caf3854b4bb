"""The families corpus (tests/fixtures/redaction/families.py) end to end: every secret, in the
hook input it arrives in, through the installed hook command with a live service; every text as
an observation through the real `mcp` client's `create_batch` and through the CLI. Afterwards no
byte of the data home (journals, the index with its full-text tables and write-ahead log, the
spool, the logs) and no answer of MCP `search`/`get_observations` holds any of the secrets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hook_runner import ONLOOKER, stop_service

sys.path.insert(0, str(Path(__file__).parents[1] / "text"))
sys.path.insert(0, str(Path(__file__).parents[1] / "mcp_tools"))
import families_corpus
from carriers import hook_input
from mcp_harness import running_server

import onlooker

ENTRY = Path(onlooker.__file__).parent / "daemon" / "entry.py"
INSTALLED = [sys.executable, "-I", "-S", str(ENTRY)]
"""What `onlooker install claude-code` has Claude Code run for every hook."""
CASES = families_corpus.CASES
SECRETS = sorted({s for case in CASES for s in case.secrets}, key=len)


def forms(secret: str) -> list[bytes]:
    """How a secret could sit in a file: as written, and as JSON writes it inside a string."""
    return [secret.encode(), json.dumps(secret)[1:-1].encode()]


def leaks_in(blob: bytes) -> list[str]:
    return [s for s in SECRETS if any(form in blob for form in forms(s))]


def leaks_under(home: Path) -> dict[str, list[str]]:
    found = {}
    for path in home.rglob("*"):
        if path.is_file():
            leaked = leaks_in(path.read_bytes())
            if leaked:
                found[str(path.relative_to(home))] = leaked
    return found


def test_no_secret_of_the_corpus_reaches_the_data_home_through_the_installed_hook(
    tmp_path: Path, onlooker_home: Path
) -> None:
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    sessions: set[str] = set()
    try:
        for n, case in enumerate(CASES):
            payload: dict[str, Any] = hook_input(case.carrier, case.text, case.command)
            session = f"s-{case.family.replace(' ', '-')}"
            sessions.add(session)
            payload.update(cwd=str(project), session_id=session, tool_use_id=f"toolu_{n}")
            done = subprocess.run(
                INSTALLED, input=json.dumps(payload).encode(), capture_output=True, timeout=60
            )
            assert done.returncode == 0, done.stderr
        for session in sessions:  # the session's end: a snapshot, memory, the digest
            end = {"session_id": session, "transcript_path": "/t.jsonl", "cwd": str(project),
                   "hook_event_name": "SessionEnd", "reason": "other"}  # fmt: skip
            subprocess.run(INSTALLED, input=json.dumps(end).encode(), timeout=60, check=True)
    finally:
        stop_service(onlooker_home)
    journals = list((onlooker_home / "journals").rglob("*.jsonl"))
    assert len(journals) >= len(sessions)  # the inputs were recorded, not dropped
    recorded = b"".join(path.read_bytes() for path in journals)
    assert recorded.count(b'"kind":"tool_call"') + recorded.count(b'"kind":"user_prompt"') > 300
    assert leaks_under(onlooker_home) == {}


@pytest.mark.parametrize("through", ["mcp", "cli"])
def test_no_secret_of_the_corpus_is_stored_as_an_observation(through: str, tmp_path: Path) -> None:
    batch = [
        {"observer": "Corpus", "content": _quoted(case), "severity": "low",
         "source_ref": f"conf/{n}.env:1", "metadata": {"carrier": case.carrier}}
        for n, case in enumerate(CASES)
    ]  # fmt: skip
    request = {"operation": "create_batch", "observations": batch}
    root = tmp_path / through
    home = root / "onlooker-home"
    with running_server(root) as server:
        if through == "mcp":
            created = server.data("observations", request)
        else:
            (root / "request.json").write_text(json.dumps(request))
            done = subprocess.run(
                [ONLOOKER, "observations", "call", f"@{root / 'request.json'}",
                 "--project", str(root)],
                capture_output=True, text=True, timeout=120, env=_env(home),
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            created = json.loads(done.stdout)
        assert len(created["observations"]) == len(CASES)
        ids = [o["id"] for o in created["observations"]]
        got = [server.data("get_observations", {"ids": ids[at : at + 20]})
               for at in range(0, len(ids), 20)]  # fmt: skip
        searched = [server.data("search", {"query": word}) for word in ("password", "token", "key")]
    answers = json.dumps([created, got, searched]).encode()
    assert leaks_in(answers) == []
    assert leaks_under(home) == {}


def _quoted(case: Any) -> str:
    """The case as an observation quotes it: a bare output with the command that printed it
    (alone, a random token is a secret to nobody: see specs/redaction.md)."""
    return f"$ {case.command}\n{case.text}" if case.command else str(case.text)


def _env(home: Path) -> dict[str, str]:
    import os

    return {**os.environ, "ONLOOKER_HOME": str(home)}
