"""The real `onlooker hook` command, fed stdin exactly as Claude Code sends it for every event."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hook_runner import ONLOOKER, answer, run_hook, stop_service

from onlooker.daemon.hookd import running_pid

SESSION = "5f0c1f4e-6a58-4a1b-9c2e-7d4b3f1a9e20"


def base(event: str, cwd: Path, session: str = SESSION) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/home/dev/.claude/projects/-work-app/{session}.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": event,
    }


def bash_failure(cwd: Path, n: int) -> dict[str, Any]:
    return {
        **base("PostToolUseFailure", cwd),
        "tool_name": "Bash",
        "tool_input": {"command": "pytest tests/test_api.py -q", "description": "Run API tests"},
        "tool_use_id": f"toolu_01Fail{n:04d}",
        "error": "Exit code 1\nFAILED tests/test_api.py::test_login - AssertionError: 401 != 200\n1 failed in 0.42s",
        "is_interrupt": False,
        "duration_ms": 812,
    }


EVERY_EVENT = {
    "SessionStart": {"source": "startup", "model": "claude-sonnet-4-6"},
    "UserPromptSubmit": {"prompt": "Fix the login test"},
    "PostToolUse": {
        "tool_name": "Read",
        "tool_input": {"file_path": "/work/app/src/api.py"},
        "tool_response": {
            "type": "text",
            "file": {
                "filePath": "/work/app/src/api.py",
                "content": "def login(): ...",
                "numLines": 1,
                "startLine": 1,
                "totalLines": 1,
            },
        },
        "tool_use_id": "toolu_01Read",
        "duration_ms": 3,
    },
    "PostToolUseFailure": {
        "tool_name": "Bash",
        "tool_input": {"command": "false"},
        "tool_use_id": "toolu_01False",
        "error": "Exit code 1",
        "is_interrupt": False,
    },
    "SubagentStart": {"agent_id": "a7bb58f3fff2b3e8d", "agent_type": "Explore"},
    "SubagentStop": {
        "stop_hook_active": False,
        "agent_id": "a7bb58f3fff2b3e8d",
        "agent_type": "Explore",
        "agent_transcript_path": "/home/dev/.claude/projects/-work-app/s/subagents/agent-a7bb58f3fff2b3e8d.jsonl",
        "last_assistant_message": "Found the handler in src/api.py.",
    },
    "Stop": {"stop_hook_active": False, "last_assistant_message": "Done."},
    "PreCompact": {"trigger": "auto", "custom_instructions": None},
    "SessionEnd": {"reason": "prompt_input_exit"},
}


def test_every_event_answers_in_claude_codes_shape(tmp_path: Path) -> None:
    for event, fields in EVERY_EVENT.items():
        done = run_hook({**base(event, tmp_path), **fields})
        assert done.returncode == 0, (event, done.stderr)
        if done.stdout.strip():
            out = json.loads(done.stdout)
            assert set(out) == {"hookSpecificOutput"}, event
            assert out["hookSpecificOutput"]["hookEventName"] == event
            assert isinstance(out["hookSpecificOutput"]["additionalContext"], str)
            assert len(out["hookSpecificOutput"]["additionalContext"]) <= 10_000


def test_eight_identical_failing_bash_calls_bring_the_stall_warning(
    tmp_path: Path, fixtures: Path
) -> None:
    """One voice for the episode (Stall and Error Cascade): when it starts and once when it
    escalates, 900 characters at most in all, every finding with its stored id."""
    answer({**base("SessionStart", tmp_path), "source": "startup"})
    answer({**base("UserPromptSubmit", tmp_path), "prompt": "Make the login test pass"})
    answers = [answer(bash_failure(tmp_path, n)) for n in range(8)]
    contexts = [a.get("hookSpecificOutput", {}).get("additionalContext", "") for a in answers]
    assert "[Trajectory Assessment - Stall" in "\n".join(contexts)
    first = next(i for i, c in enumerate(contexts) if "[Trajectory Assessment - Stall" in c)
    assert first < 7
    assert "failed with the same error" in contexts[first] and "calls 1, 2, 3, 4" in contexts[first]
    said = "\n".join(contexts)
    assert said.count("[Trajectory Assessment") == 2 and len(said) <= 900
    ids = re.findall(r"\[ids ([0-9a-f]{8}), ([0-9a-f]{8})\]", said)
    assert len(ids) == 2 and ids[0] == ids[1]  # the escalation names the findings first told
    golden = json.loads((fixtures / "hook" / "stall-answer.json").read_text())
    assert json.loads(re.sub(r"\b[0-9a-f]{8}\b", "ID", json.dumps(answers[first]))) == golden
    assert all(
        a["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure" for a in answers if a
    )


def test_user_prompt_submit_delivers_open_findings_once(tmp_path: Path) -> None:
    for n in range(6):
        answer(bash_failure(tmp_path, n))
    first = answer({**base("UserPromptSubmit", tmp_path), "prompt": "still failing?"})
    text = first["hookSpecificOutput"]["additionalContext"]
    assert "<observations>" in text and "Active Observations:" in text and "**Stall**" in text
    again = answer({**base("UserPromptSubmit", tmp_path), "prompt": "and now?"})
    assert "<observations>" not in json.dumps(again)


@pytest.mark.parametrize(
    "raw",
    [b"", b"   \n", b"not json", b"[1, 2, 3]", b'"a string"', b"\xff\xfe\x00binary\x80",
     b'{"hook_event_name": 42, "session_id": "s"}',
     b'{"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash", "tool_input": "not an object"}',
     b'{"hook_event_name": "NoSuchEvent", "session_id": "s"}',
     b'{"hook_event_name": "PostToolUse"}'],
    ids=["empty", "blank", "text", "array", "string", "binary", "wrong-type", "bad-input", "unknown-event", "no-session"],
)  # fmt: skip
def test_garbage_exits_zero_with_no_output_and_is_spooled(raw: bytes, onlooker_home: Path) -> None:
    done = run_hook(None, raw=raw)
    assert done.returncode == 0
    assert done.stdout == b""
    assert not list((onlooker_home / "spool").glob("*.hook"))  # never to be replayed
    spooled = list((onlooker_home / "spool" / "refused").glob("*.hook"))
    assert len(spooled) == 1
    kept = spooled[0].read_bytes().partition(b"\n")[2]
    # kept as sent, with the id the client gives every input that is a JSON object
    with_id = re.fullmatch(rb'\{"onlooker_input_id":"[0-9a-f]{24}",?(.*)', kept, re.DOTALL)
    assert (b"{" + with_id[1] == raw.lstrip()) if with_id else kept == raw


def test_service_outlives_the_hook_and_runs_once_per_home(
    tmp_path: Path, onlooker_home: Path
) -> None:
    payload = json.dumps({**base("UserPromptSubmit", tmp_path), "prompt": "hi"}).encode()
    hooks = [
        subprocess.Popen([ONLOOKER, "hook"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        for _ in range(6)
    ]
    for hook in hooks:
        hook.communicate(payload, timeout=60)
        assert hook.returncode == 0
    pid = running_pid(onlooker_home)
    assert pid is not None
    os.kill(pid, 0)  # still alive after every hook process exited
    locks = list((onlooker_home / "run").glob("hookd.*"))
    assert {p.name for p in locks} >= {"hookd.lock", "hookd.pid", "hookd.sock"}
    assert not list((onlooker_home / "spool").glob("*.hook"))


def test_service_stops_when_idle_and_the_next_hook_starts_it(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONLOOKER_HOOKD_IDLE", "0.3")
    answer({**base("UserPromptSubmit", tmp_path), "prompt": "one"})
    first = running_pid(onlooker_home)
    stop_service(onlooker_home)
    assert running_pid(onlooker_home) is None
    answer({**base("UserPromptSubmit", tmp_path), "prompt": "two"})
    journal = next((onlooker_home / "journals").rglob(f"{SESSION}.jsonl"))
    prompts = [
        json.loads(line)["text"]
        for line in journal.read_text().splitlines()
        if '"user_prompt"' in line
    ]
    assert prompts == ["one", "two"] and first is not None


def test_subagent_calls_form_their_own_session(tmp_path: Path, onlooker_home: Path) -> None:
    answer({**base("SubagentStart", tmp_path), "agent_id": "agent7", "agent_type": "Explore"})
    call = {**bash_failure(tmp_path, 1), "agent_id": "agent7", "agent_type": "Explore"}
    answer(call)
    answer({**base("SubagentStop", tmp_path), **EVERY_EVENT["SubagentStop"], "agent_id": "agent7"})
    journals = {p.name for p in (onlooker_home / "journals").rglob("*.jsonl")}
    assert f"{SESSION}.jsonl" in journals
    sub = [p for p in (onlooker_home / "journals").rglob("*.jsonl") if "agent7" in p.name]
    assert sub, journals
    started = json.loads(sub[0].read_text().splitlines()[0])
    assert (started["kind"], started["parent_session_id"], started["agent_type"]) == (
        "session_started",
        SESSION,
        "Explore",
    )


def test_secrets_never_reach_the_journal_or_the_index(tmp_path: Path, onlooker_home: Path) -> None:
    secret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd"
    for n in range(5):
        answer(
            {
                **base("PostToolUseFailure", tmp_path),
                "tool_name": "Bash",
                "tool_input": {"command": f"ANTHROPIC_API_KEY={secret} python run.py"},
                "tool_use_id": f"toolu_s{n}",
                "error": f"Exit code 1\nAuthenticationError: invalid x-api-key {secret} <private>home 12 Elm St</private>",
            }
        )
    stop_service(onlooker_home)
    stored = b"".join(p.read_bytes() for p in onlooker_home.rglob("*") if p.is_file())
    assert secret.encode() not in stored
    assert b"12 Elm St" not in stored
    assert b"[REDACTED:anthropic_key]" in stored


@pytest.mark.parametrize("broken", [b"", b"\xff\xfe"], ids=["utf-8", "not-utf-8"])
def test_spooled_inputs_are_redacted(broken: bytes, onlooker_home: Path) -> None:
    """Inputs the service refuses, and inputs the client spools itself (no service reachable)."""
    secret = b"sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd"
    raw = b'{"hook_event_name": 42, "note": "' + secret + b'"}' + broken
    assert run_hook(None, raw=raw).returncode == 0
    from onlooker.daemon.client import spool

    spool(str(onlooker_home), raw, "the service did not answer")
    spooled = [p.read_bytes() for p in (onlooker_home / "spool").rglob("*.hook")]
    assert len(spooled) == 2
    for kept in spooled:
        assert secret not in kept and b"[REDACTED:anthropic_key]" in kept
        assert kept.endswith(broken)  # bytes that are not UTF-8 are kept as they were
