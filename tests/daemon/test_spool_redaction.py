"""The hook client's spool keeps decoded values redacted (specs/redaction.md): through the real
installed command, run as a subprocess with no service able to start, an input's JSON is parsed
and each value redacted, so a `\\n` escape or an escaped quote hides no secret name, and what is
kept is still JSON that can be replayed. Both corpora go through it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from onlooker.daemon import client

sys.path.insert(0, str(Path(__file__).parents[1] / "text"))
import families_corpus
from carriers import hook_input
from test_client_spool import run_entry

CORPUS = Path(__file__).parents[1] / "fixtures" / "redaction"


def spool_through_client(home: Path, payload: dict[str, Any]) -> bytes:
    """`payload` handed to the installed hook command while no service can start; what it kept."""
    home.mkdir(exist_ok=True)
    (home / "logs").write_text("a file where the log folder should be")
    done = run_entry_with(home, payload)
    assert (done.returncode, done.stdout) == (0, b"")
    files = list((home / "spool").glob("*.hook"))
    assert len(files) == 1, files
    return files[0].read_bytes().partition(b"\n")[2]


def run_entry_with(home: Path, payload: dict[str, Any]) -> Any:
    import test_client_spool

    saved = test_client_spool.PAYLOAD
    test_client_spool.PAYLOAD = payload
    try:
        return run_entry(home)
    finally:
        test_client_spool.PAYLOAD = saved


def test_escapes_hide_no_secret_name_in_the_spool(onlooker_home: Path) -> None:
    """`…\\nDB_PASS=…` in the raw JSON glues an `n` onto the name; `\\"db_password\\": \\"…\\"`
    breaks the quotes. Decoded, both are plain."""
    payload = {
        **{"session_id": "s-esc", "transcript_path": "/t.jsonl", "cwd": "/w"},
        "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_esc",
        "tool_input": {"command": "./scripts/show-config.sh"},
        "tool_response": {"stdout": "HOST=db\nDB_PASS=Zq8v!mR2pLx\n", "stderr": "",
                          "interrupted": False},
        "extra": json.dumps({"db_password": "Hx9-kq2Lw-77", "user": "app"}),
    }  # fmt: skip
    kept = spool_through_client(onlooker_home, payload)
    assert b"Zq8v!mR2pLx" not in kept and b"Hx9-kq2Lw-77" not in kept
    data = json.loads(kept)  # still JSON: it can be replayed
    assert data["tool_use_id"] == "toolu_esc" and data["tool_input"] == {
        "command": "./scripts/show-config.sh"
    }
    assert data["tool_response"]["stdout"] == "HOST=db\nDB_PASS=[REDACTED:assignment]\n"
    assert json.loads(data["extra"])["user"] == "app"


def test_both_corpora_stay_out_of_the_spool(onlooker_home: Path) -> None:
    """Every secret of secrets.json and of the families corpus, each in its carrier's hook input,
    all in one input handed to the real client with the service down."""
    first = json.loads((CORPUS / "secrets.json").read_text())
    inputs = [hook_input("bash_stdout", case["text"]) for case in first]
    inputs += [hook_input(c.carrier, c.text, c.command) for c in families_corpus.CASES]
    secrets = [case["secret"] for case in first]
    secrets += [secret for c in families_corpus.CASES for secret in c.secrets]
    payload = {
        **{"session_id": "s-all", "transcript_path": "/t.jsonl", "cwd": "/w"},
        "hook_event_name": "PostToolUse", "tool_name": "mcp__corpus__replay",
        "tool_use_id": "toolu_all", "tool_input": {"inputs": inputs}, "tool_response": "ok",
    }  # fmt: skip
    kept = spool_through_client(onlooker_home, payload).decode()
    leaked = [s for s in secrets if s in kept or json.dumps(s)[1:-1] in kept]
    assert leaked == []
    assert len(json.loads(kept)["tool_input"]["inputs"]) == len(inputs)


def test_controls_come_back_unchanged_from_the_spool(onlooker_home: Path) -> None:
    inputs = [hook_input(c.carrier, c.text) for c in families_corpus.CONTROLS]
    payload = {"session_id": "s-ctl", "hook_event_name": "PostToolUse", "tool_name": "mcp__c__c",
               "tool_input": {"inputs": inputs}, "tool_response": "ok"}  # fmt: skip
    kept = json.loads(spool_through_client(onlooker_home, payload))
    assert kept["tool_input"]["inputs"] == inputs


def test_input_that_does_not_parse_is_decoded_before_the_text_pass() -> None:
    """A cut input is no JSON: its escapes are decoded, then the text pass runs."""
    raw = b'{"tool_input": {"command": "echo hi"}, "tool_response": {"stdout": "A=1\\nDB_PASS=Zq8v!mR2pLx\\nB=\\"'
    kept = client._without_secrets(raw)  # through onlooker.text.spooled
    assert b"Zq8v!mR2pLx" not in kept and b"DB_PASS=[REDACTED:" in kept
    cut = client._without_secrets(raw + b"x" * 100, head=90)
    assert b"Zq8v!mR2pLx" not in cut and len(cut) <= 90


def test_a_replayed_input_keeps_the_time_it_was_spooled(
    onlooker_home: Path, tmp_path: Path
) -> None:
    """The service replays the spool later; the call happened when the hook spooled it, and its
    event says so (the order of a conversation and the deadline's clock depend on it)."""
    from datetime import UTC, datetime, timedelta

    from onlooker.core.clock import FixedClock
    from onlooker.core.events import ToolCall
    from onlooker.daemon.spool import replay, spool_entries
    from onlooker.hosts.claude_code.hook import HookHandler
    from onlooker.store import Store, project_for

    payload = {
        **{"session_id": "s-late", "transcript_path": "/t.jsonl", "cwd": str(tmp_path)},
        "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_late",
        "tool_input": {"command": "make"}, "tool_response": {"stdout": "ok", "stderr": ""},
    }  # fmt: skip
    before = datetime.now(UTC)
    spool_through_client(onlooker_home, payload)
    (entry,) = spool_entries(onlooker_home)
    assert entry.spooled_at is not None and before <= entry.spooled_at <= datetime.now(UTC)
    later = FixedClock(entry.spooled_at + timedelta(hours=2))
    with Store(tmp_path / "home") as store:
        handler = HookHandler(store, clock=later, wake_worker=lambda home: None)
        assert replay(handler, onlooker_home) == (1, 0)
        handler.close()
        records = store.journal(project_for(tmp_path), "s-late").read().records
    (call,) = [r for r in records if isinstance(r, ToolCall)]
    assert call.at == entry.spooled_at
