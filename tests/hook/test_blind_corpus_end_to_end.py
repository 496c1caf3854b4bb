"""The blind corpus (tests/fixtures/redaction/blind_*.py) through the whole hook path: a sample
of every family, each secret in the hook input it arrives in, through the installed hook command
with a live service, and then no byte of the data home (journals, the index with its full-text
tables, the spool, the logs) holds one; and every case through the real client's spool with the
service down; and every case as an observation through the real `mcp` client's
`create_batch` and through the CLI, after which no answer of MCP `get_observations`/`search` and
no byte of the data home holds one."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hook_runner import ONLOOKER, stop_service

sys.path.insert(0, str(Path(__file__).parents[1] / "text"))
sys.path.insert(0, str(Path(__file__).parents[1] / "daemon"))
sys.path.insert(0, str(Path(__file__).parents[1] / "mcp_tools"))
import blind_corpus
from carriers import hook_input
from mcp_harness import running_server
from test_secrets_end_to_end import INSTALLED, _env, _quoted, forms
from test_spool_redaction import spool_through_client

#: Every third case: each family and each carrier, in a run of some 80 hook calls.
SAMPLE = blind_corpus.CASES[::3]


def _leaks(blob: bytes, cases: list[Any]) -> list[str]:
    secrets = {s for case in cases for s in case.secrets}
    return sorted(s for s in secrets if any(form in blob for form in forms(s)))


def test_the_sample_covers_every_family_and_carrier() -> None:
    assert len(Counter(case.family for case in SAMPLE)) == 12
    assert len({case.carrier for case in SAMPLE}) == 11


def test_no_blind_secret_reaches_the_data_home_through_the_installed_hook(
    tmp_path: Path, onlooker_home: Path
) -> None:
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    try:
        for n, case in enumerate(SAMPLE):
            payload: dict[str, Any] = hook_input(case.carrier, case.text, case.command)
            payload.update(cwd=str(project), session_id="s-blind", tool_use_id=f"toolu_{n}")
            done = subprocess.run(
                INSTALLED, input=json.dumps(payload).encode(), capture_output=True, timeout=60
            )
            assert done.returncode == 0, done.stderr
        end = {"session_id": "s-blind", "transcript_path": "/t.jsonl", "cwd": str(project),
               "hook_event_name": "SessionEnd", "reason": "other"}  # fmt: skip
        subprocess.run(INSTALLED, input=json.dumps(end).encode(), timeout=60, check=True)
    finally:
        stop_service(onlooker_home)
    journals = list((onlooker_home / "journals").rglob("*.jsonl"))
    recorded = b"".join(path.read_bytes() for path in journals)
    assert recorded.count(b'"kind":"tool_call"') + recorded.count(b'"kind":"user_prompt"') >= 60
    found = {
        str(path.relative_to(onlooker_home)): leaked
        for path in onlooker_home.rglob("*")
        if path.is_file() and (leaked := _leaks(path.read_bytes(), SAMPLE))
    }
    assert found == {}


def test_no_blind_secret_reaches_the_spool(onlooker_home: Path) -> None:
    """Every case in one input handed to the real client with the service down."""
    inputs = [hook_input(c.carrier, c.text, c.command) for c in blind_corpus.CASES]
    payload = {
        **{"session_id": "s-blind-spool", "transcript_path": "/t.jsonl", "cwd": "/w"},
        "hook_event_name": "PostToolUse", "tool_name": "mcp__corpus__replay",
        "tool_use_id": "toolu_blind", "tool_input": {"inputs": inputs}, "tool_response": "ok",
    }  # fmt: skip
    kept = spool_through_client(onlooker_home, payload)
    assert _leaks(kept, blind_corpus.CASES) == []
    controls = [hook_input(c.carrier, c.text, c.command) for c in blind_corpus.CONTROLS]
    payload.update(tool_input={"inputs": controls}, tool_use_id="toolu_blind_controls")
    for kept_before in (onlooker_home / "spool").glob("*.hook"):
        kept_before.unlink()
    assert json.loads(spool_through_client(onlooker_home, payload))["tool_input"] == {
        "inputs": controls
    }


@pytest.mark.parametrize("through", ["mcp", "cli"])
def test_no_blind_secret_is_stored_as_an_observation(through: str, tmp_path: Path) -> None:
    """Every case as an observation's text (a tool input's fields also as its metadata), in one
    `create_batch` through the real `mcp` client or through `onlooker observations call`."""
    cases = blind_corpus.CASES
    batch = [
        {"observer": "BlindCorpus", "content": _quoted(case), "severity": "low",
         "source_ref": f"conf/{n}.txt:1",
         "metadata": {"carrier": case.carrier,
                      **({"tool_input": json.loads(case.text)} if case.carrier == "mcp_input" else {})}}
        for n, case in enumerate(cases)
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
                capture_output=True, text=True, timeout=300, env=_env(home),
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            created = json.loads(done.stdout)
        assert len(created["observations"]) == len(cases)
        ids = [o["id"] for o in created["observations"]]
        got = [server.data("get_observations", {"ids": ids[at : at + 20]})
               for at in range(0, len(ids), 20)]  # fmt: skip
        searched = [server.data("search", {"query": w}) for w in ("password", "token", "key")]
    assert _leaks(json.dumps([created, got, searched]).encode(), cases) == []
    stored = [path for path in home.rglob("*") if path.is_file()]
    assert any(b"BlindCorpus" in path.read_bytes() for path in stored)  # the batch was kept
    found = {
        str(path.relative_to(home)): leaked
        for path in stored
        if path.is_file() and (leaked := _leaks(path.read_bytes(), cases))
    }
    assert found == {}
