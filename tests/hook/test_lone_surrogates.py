"""No hook input poisons its session (specs/hook-service.md, "Text that cannot be encoded").

Valid JSON may hold a lone surrogate (`"\\ud800"`, as JavaScript's JSON.stringify writes one),
which UTF-8 cannot encode. Fed through the installed hook command in a prompt, a tool's
input (a key too), its response and an error, with the service up and with the service down
(spooled, then replayed), the session goes on: the 40 hooks after them deliver what the same
hooks deliver to a twin session that was sent U+FFFD in their place, the journal holds U+FFFD,
and the saved session is as far as its journal.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kill_run import ENTRY

from onlooker.store import Store, project_for

LONE = "\ud800"
"""json.dumps writes it as the escape `\\ud800`: valid JSON, no UTF-8 text."""
REPLACED = "\ufffd"


def hook(session: str, root: Path, event: str, **fields: Any) -> dict[str, Any]:
    return {"session_id": session, "transcript_path": f"/t/{session}.jsonl", "cwd": str(root),
            "hook_event_name": event, **fields}  # fmt: skip


def carriers(session: str, root: Path, odd: str) -> list[dict[str, Any]]:
    """Hooks carrying `odd` in several fields, a low surrogate and a split pair besides."""
    low = "\udc00" if odd == LONE else REPLACED
    return [
        hook(session, root, "UserPromptSubmit", prompt=f"fix the {odd} parser"),
        hook(session, root, "PostToolUse", tool_name="Bash", tool_use_id="toolu_odd1",
             tool_input={"command": f"printf '{odd}'", f"note{odd}": f"x{low}y"},
             tool_response={"stdout": f"a{odd}b{low}", "stderr": "", "interrupted": False}),
        hook(session, root, "PostToolUseFailure", tool_name="Bash", tool_use_id="toolu_odd2",
             tool_input={"command": "make check"}, error=f"make: *** [check{odd}] Error 2"),
    ]  # fmt: skip


def flow(session: str, root: Path, calls: int = 40) -> list[dict[str, Any]]:
    """`calls` hooks: every other call the same failing command (the Stall observer speaks),
    a prompt and a Stop every twelve."""
    hooks = []
    for n in range(1, calls + 1):
        if n % 12 == 1:
            hooks.append(hook(session, root, "UserPromptSubmit", prompt=f"step {n}"))
        if n % 2:
            path = f"{root}/src/m{n}.py"
            hooks.append(hook(session, root, "PostToolUse", tool_name="Edit",
                              tool_use_id=f"toolu_{n}", tool_response={"filePath": path},
                              tool_input={"file_path": path, "old_string": "a", "new_string": "b"}))  # fmt: skip
        else:
            hooks.append(hook(session, root, "PostToolUseFailure", tool_name="Bash",
                              tool_use_id=f"toolu_{n}", tool_input={"command": "make check"},
                              error="make: *** [check] Error 2"))  # fmt: skip
        if n % 12 == 0:
            hooks.append(hook(session, root, "Stop", stop_hook_active=False))
    return hooks


def send(payload: dict[str, Any]) -> str:
    """The installed hook command's answer, finding ids masked ('' for none); it exits 0 and
    says nothing on stderr."""
    raw = json.dumps(payload).encode()  # ensure_ascii: a lone surrogate goes as its escape
    done = subprocess.run([sys.executable, "-I", "-S", str(ENTRY)], input=raw,
                          capture_output=True, timeout=60, env=dict(os.environ))  # fmt: skip
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    return re.sub(rb"\b[0-9a-f]{6,}\b", b"ID", done.stdout).decode()


def make_root(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    (root / ".git").mkdir(parents=True)
    return root


def assert_session_caught_up(home: Path, root: Path, session: str) -> list[dict[str, Any]]:
    """The journal's records (no lone surrogate, none refused), the saved session as far."""
    journal = home / "journals" / project_for(root) / f"{session}.jsonl"
    records = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    with Store(home) as store:
        saved = store.index.load_session(session)
    assert saved is not None and saved[1] == max(r.get("seq", 0) for r in records)
    assert not list((home / "spool").rglob("*.hook")), "an input failed"
    return records


def test_lone_surrogates_with_the_service_up(tmp_path: Path, onlooker_home: Path) -> None:
    odd_root, twin_root = make_root(tmp_path, "odd"), make_root(tmp_path, "twin")
    answers = {}
    for session, root, text in (("odd", odd_root, LONE), ("twin", twin_root, REPLACED)):
        send(hook(session, root, "SessionStart", source="startup"))
        for payload in carriers(session, root, text):
            send(payload)
        answers[session] = [send(payload) for payload in flow(session, root)]
        send(hook(session, root, "SessionEnd", reason="other"))
    assert answers["odd"] == answers["twin"]
    assert sum(bool(a) for a in answers["odd"]) >= 6, answers["odd"]  # they do deliver
    records = assert_session_caught_up(onlooker_home, odd_root, "odd")
    text = json.dumps(records, ensure_ascii=False)
    assert "\\ud800" not in text and text.count(REPLACED) >= 6
    calls = [r["call_id"] for r in records if r["kind"] == "tool_call"]
    assert calls[:2] == ["toolu_odd1", "toolu_odd2"] and len(calls) == len(set(calls)) == 2 + 40
    assert records[2]["input"] == {"command": f"printf '{REPLACED}'", f"note{REPLACED}": "x\ufffdy"}


def test_lone_surrogates_with_the_service_down(tmp_path: Path, onlooker_home: Path) -> None:
    """No service can start (its log folder cannot be made): the hook command spools the
    inputs, whole and redacted; a service started later replays them into the session."""
    root = make_root(tmp_path, "odd")
    onlooker_home.mkdir()
    blocker = onlooker_home / "logs"
    blocker.write_text("a file where the log folder should be")
    for payload in carriers("odd", root, LONE):
        assert send(payload) == ""
    spooled = sorted((onlooker_home / "spool").glob("*.hook"))
    assert len(spooled) == 3
    for path in spooled:
        reason, _, body = path.read_bytes().partition(b"\n")
        assert reason.startswith(b"# FileExistsError")
        assert json.loads(body)["session_id"] == "odd"  # kept whole, not dropped
    blocker.unlink()
    send(hook("odd", root, "SessionStart", source="startup"))  # starts the service
    deadline = time.monotonic() + 30  # it replays the spool once idle for a second
    while list((onlooker_home / "spool").glob("*.hook")):
        assert time.monotonic() < deadline, "the spool was not replayed"
        time.sleep(0.05)
    answers = [send(payload) for payload in flow("odd", root)]
    assert sum(bool(a) for a in answers) >= 6, answers
    send(hook("odd", root, "SessionEnd", reason="other"))
    records = assert_session_caught_up(onlooker_home, root, "odd")
    prompts = [r["text"] for r in records if r["kind"] == "user_prompt"]
    assert prompts[0] == f"fix the {REPLACED} parser"
    calls = [r["call_id"] for r in records if r["kind"] == "tool_call"]
    assert sorted(calls[:2]) == ["toolu_odd1", "toolu_odd2"] and len(set(calls)) == 2 + 40
