"""Claude Code hook input becomes onlooker events; bad input is refused naming the field."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from onlooker import SessionStarted, SubagentStopped, ToolCall, TurnEnded, UserPrompt
from onlooker.hosts.claude_code.hook_input import (
    HookInputError,
    hook_answer,
    parse_hook_input,
    read_hook_input,
)

NOW = datetime(2026, 5, 1, tzinfo=UTC)
BASE = {"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": "/work/app"}


def test_post_tool_use_becomes_a_successful_tool_call() -> None:
    where, event = parse_hook_input(
        {**BASE, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
         "tool_response": {"stdout": "a.py\nb.py", "stderr": "", "interrupted": False},
         "tool_use_id": "toolu_1", "duration_ms": 12},
        NOW,
    )  # fmt: skip
    assert isinstance(event, ToolCall)
    assert (event.tool, event.ok, event.output, event.duration_ms, event.call_id) == (
        "Bash",
        True,
        "a.py\nb.py",
        12.0,
        "toolu_1",
    )
    assert event.result == {"stdout": "a.py\nb.py", "stderr": "", "interrupted": False}
    assert (where.session_key, where.cwd) == ("s1", "/work/app")


def test_failure_and_interrupt() -> None:
    _, event = parse_hook_input(
        {**BASE, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": {},
         "tool_use_id": "t", "error": "Exit code 1", "is_interrupt": True},
        NOW,
    )  # fmt: skip
    assert (
        isinstance(event, ToolCall) and not event.ok and event.error == "[interrupted] Exit code 1"
    )


def test_subagent_tool_calls_get_their_own_session_key() -> None:
    where, _ = parse_hook_input(
        {**BASE, "hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": {}, "tool_use_id": "t",
         "agent_id": "a1", "agent_type": "Explore"},
        NOW,
    )  # fmt: skip
    assert where.session_key == "s1/a1"
    stop_where, stop = parse_hook_input(
        {**BASE, "hook_event_name": "SubagentStop", "agent_id": "a1", "agent_type": "Explore",
         "agent_transcript_path": "/a.jsonl", "stop_hook_active": False},
        NOW,
    )  # fmt: skip
    assert (
        stop_where.session_key == "s1"
        and isinstance(stop, SubagentStopped)
        and stop.agent_id == "a1"
    )


@pytest.mark.parametrize(
    ("name", "extra", "kind"),
    [("SessionStart", {"source": "compact"}, SessionStarted), ("UserPromptSubmit", {"prompt": "hi"}, UserPrompt),
     ("Stop", {"stop_hook_active": False, "last_assistant_message": "done"}, TurnEnded)],
)  # fmt: skip
def test_other_events(name: str, extra: dict[str, object], kind: type) -> None:
    _, event = parse_hook_input({**BASE, "hook_event_name": name, **extra}, NOW)
    assert isinstance(event, kind) and event.at == NOW


@pytest.mark.parametrize(
    ("data", "message"),
    [({**BASE, "hook_event_name": "PostToolUse", "tool_input": {}}, "no 'tool_name'"),
     ({**BASE, "hook_event_name": "PostToolUse", "tool_name": "X", "tool_input": []}, "'tool_input' must be an object"),
     ({**BASE, "hook_event_name": "PostToolUse", "tool_name": "X", "duration_ms": "fast"}, "'duration_ms' must be a number"),
     ({"hook_event_name": "Stop"}, "no 'session_id'"),
     ({**BASE, "hook_event_name": "Teleport"}, "'Teleport' is not one of"),
     ({**BASE, "hook_event_name": 3}, "'hook_event_name' must be a string")],
)  # fmt: skip
def test_bad_input_names_the_field(data: dict[str, object], message: str) -> None:
    with pytest.raises(HookInputError, match=message):
        parse_hook_input(data, NOW)


def test_read_hook_input_refuses_non_objects() -> None:
    for raw, message in [
        (b"", "empty"),
        (b"\xff", "not UTF-8"),
        (b"[]", "JSON object"),
        (b"{", "not JSON"),
    ]:
        with pytest.raises(HookInputError, match=message):
            read_hook_input(raw)


def test_answers() -> None:
    assert hook_answer("PostToolUse", "") == {}
    assert (
        hook_answer("PostToolUse", "x" * 20_000)["hookSpecificOutput"]["additionalContext"]
        == "x" * 10_000
    )
    assert hook_answer("Stop", "feedback") == {}  # context on Stop would keep the agent going
    assert hook_answer("Stop", block_reason="observer timed out") == {
        "decision": "block",
        "reason": "observer timed out",
    }
    assert hook_answer("SessionEnd", "anything") == {}
