"""Claude Code hooks: the stdin JSON of each hook event as onlooker events, and the JSON to answer.

Field names follow Claude Code's hook input (session_id, transcript_path, cwd, hook_event_name and
the per-event fields); answers use `hookSpecificOutput.additionalContext`, cut at 10,000 characters.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...core.events import (
    Compacting,
    Event,
    SessionEnded,
    SessionStarted,
    SubagentStarted,
    SubagentStopped,
    ToolCall,
    TurnEnded,
    UserPrompt,
)
from ...core.feedback import FEEDBACK_LIMIT
from ...daemon.client import INPUT_ID, UNANSWERED
from ...errors import HookInputError as HookInputError
from ...errors import HookInputOverLimit
from ...runtime import Arrival, subagent_session_id
from ...text.clipping import clip, clip_values
from ...text.encodable import encodable
from .content import result_text
from .input_limits import MAX_INPUT_BYTES, load_limited

HOST = "claude-code"
"""The host a session's start names (specs/serve.md)."""

#: Hook events onlooker handles.
HOOK_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "SessionEnd",
)

#: Events whose answer may carry `additionalContext` that the agent reads and acts on. Stop and
#: SubagentStop also accept it, but there it makes the agent go on working, so onlooker only
#: answers them with an explicit block.
CONTEXT_EVENTS = frozenset(
    {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "SubagentStart"}
)


#: Events that Claude Code lets a hook block with a reason (`decision: "block"`): the agent is told
#: the reason (PostToolUse, Stop, SubagentStop), or the prompt is refused (UserPromptSubmit).
BLOCK_EVENTS = frozenset({"PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"})


@dataclass(frozen=True, slots=True)
class HookInput:
    """The parts of a hook input that locate it: which session, which agent, which project."""

    event_name: str
    session_id: str
    cwd: str
    transcript_path: str = ""
    agent_id: str = ""
    """Set when the hook fires inside a subagent (tool hooks) or for SubagentStart/Stop."""
    agent_type: str = ""
    answered: bool = True
    """False for an input its hook handed over unanswered (a session's start that did not wait
    for the service to start, daemon/client.py): what it has to say waits for the next hook."""

    def arrival(self, event: Event) -> Arrival:
        """The event as the Runtime takes it; context is delivered where Claude Code reads it."""
        deliverable = self.answered and self.event_name in CONTEXT_EVENTS
        return Arrival(
            event, self.session_id, cwd=self.cwd, agent_id=self.agent_id,
            agent_type=self.agent_type, deliverable=deliverable,
        )  # fmt: skip

    @property
    def session_key(self) -> str:
        """The onlooker session the event belongs to: a subagent's calls form their own session."""
        if self.agent_id and self.event_name not in ("SubagentStart", "SubagentStop"):
            return subagent_session_id(self.session_id, self.agent_id)
        return self.session_id


def read_hook_input(raw: bytes | str) -> dict[str, Any]:
    """The hook input as a JSON object; HookInputError if empty, not JSON or not an object, and
    HookInputOverLimit past a limit of `input_limits` (size, depth, values, integer digits)."""
    if len(raw) > MAX_INPUT_BYTES:
        raise HookInputOverLimit(
            f"hook input is {len(raw):,} bytes; at most {MAX_INPUT_BYTES:,} are taken"
        )
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise HookInputError(f"hook input is not UTF-8 text ({exc.reason})") from None
    if not raw.strip():
        raise HookInputError("hook input is empty")
    try:
        data = load_limited(raw)
    except json.JSONDecodeError as exc:
        raise HookInputError(f"hook input is not JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict):
        raise HookInputError(f"hook input must be a JSON object, not {type(data).__name__}")
    # UTF-8 text holds no surrogate: only a `\\uD800`-style escape can bring one in
    return encodable(data) if "\\ud" in raw or "\\uD" in raw else data


def parse_hook_input(data: Mapping[str, Any], now: datetime) -> tuple[HookInput, Event]:
    """Turn one hook input into where it belongs and the event it stands for."""
    name = _text(data, "hook_event_name", required=True)
    parser = _PARSERS.get(name)
    if parser is None:
        raise HookInputError(f"hook_event_name {name!r} is not one of: {', '.join(HOOK_EVENTS)}")
    where = HookInput(
        event_name=name,
        session_id=_text(data, "session_id", required=True),
        cwd=_text(data, "cwd"),
        transcript_path=_text(data, "transcript_path"),
        agent_id=_text(data, "agent_id"),
        agent_type=_text(data, "agent_type"),
        answered=data.get(UNANSWERED) is not True,
    )
    event = parser(data, where, now)
    input_id = _text(data, INPUT_ID)[:64]
    return where, dataclasses.replace(event, input_id=input_id) if input_id else event


def hook_answer(
    event_name: str, context: str = "", *, block_reason: str = "", notice: str = ""
) -> dict[str, Any]:
    """The JSON to print: additionalContext for events that take it, a block where allowed, and
    a notice for the user (`systemMessage`, which Claude Code shows the user at every event)."""
    answer: dict[str, Any] = {}
    if block_reason and event_name in BLOCK_EVENTS:
        answer = {"decision": "block", "reason": block_reason[:FEEDBACK_LIMIT]}
    if notice:
        answer["systemMessage"] = notice[:FEEDBACK_LIMIT]
    if not context or event_name not in CONTEXT_EVENTS:
        return answer
    answer["hookSpecificOutput"] = {
        "hookEventName": event_name,
        "additionalContext": context[:FEEDBACK_LIMIT],
    }
    return answer


# -- one parser per hook event --------------------------------------------------------------------


def _session_start(data: Mapping[str, Any], where: HookInput, now: datetime) -> Event:
    return SessionStarted(
        at=now,
        source=_text(data, "source") or "startup",
        cwd=where.cwd,
        project=os.path.basename(where.cwd.rstrip("/")) if where.cwd else "",
        agent_type=where.agent_type,
        host=HOST,
    )


def _user_prompt(data: Mapping[str, Any], where: HookInput, now: datetime) -> Event:
    return UserPrompt(at=now, text=_text(data, "prompt"))


def _post_tool_use(data: Mapping[str, Any], where: HookInput, now: datetime) -> Event:
    response = data.get("tool_response")
    return ToolCall(
        at=now,
        call_id=_text(data, "tool_use_id"),
        tool=_text(data, "tool_name", required=True),
        input=clip_values(_mapping(data, "tool_input")),
        output=clip(_response_text(response)),
        ok=True,
        duration_ms=_number(data, "duration_ms"),
        result=clip_values(response) if isinstance(response, dict) else None,
    )


def _post_tool_use_failure(data: Mapping[str, Any], where: HookInput, now: datetime) -> Event:
    error = _text(data, "error")
    if data.get("is_interrupt") is True:
        error = f"[interrupted] {error}".strip()
    return ToolCall(
        at=now,
        call_id=_text(data, "tool_use_id"),
        tool=_text(data, "tool_name", required=True),
        input=clip_values(_mapping(data, "tool_input")),
        output=clip(error),
        ok=False,
        error=clip(error),
        duration_ms=_number(data, "duration_ms"),
    )


def _stop(data: Mapping[str, Any], where: HookInput, now: datetime) -> Event:
    return TurnEnded(
        at=now,
        last_message=clip(_text(data, "last_assistant_message")),
        continued=data.get("stop_hook_active") is True,
    )


def _subagent_start(data: Mapping[str, Any], where: HookInput, now: datetime) -> Event:
    return SubagentStarted(
        at=now, agent_id=_text(data, "agent_id", required=True), agent_type=where.agent_type
    )


def _subagent_stop(data: Mapping[str, Any], where: HookInput, now: datetime) -> Event:
    return SubagentStopped(
        at=now,
        agent_id=_text(data, "agent_id", required=True),
        agent_type=where.agent_type,
        transcript_path=_text(data, "agent_transcript_path"),
        last_message=clip(_text(data, "last_assistant_message")),
    )


def _pre_compact(data: Mapping[str, Any], where: HookInput, now: datetime) -> Event:
    return Compacting(at=now, trigger=_text(data, "trigger") or "auto")


def _session_end(data: Mapping[str, Any], where: HookInput, now: datetime) -> Event:
    return SessionEnded(at=now, reason=_text(data, "reason"))


_PARSERS: dict[str, Callable[[Mapping[str, Any], HookInput, datetime], Event]] = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _user_prompt,
    "PostToolUse": _post_tool_use,
    "PostToolUseFailure": _post_tool_use_failure,
    "Stop": _stop,
    "SubagentStart": _subagent_start,
    "SubagentStop": _subagent_stop,
    "PreCompact": _pre_compact,
    "SessionEnd": _session_end,
}


# -- field access that names the field on error ----------------------------------------------------


def _text(data: Mapping[str, Any], field: str, *, required: bool = False) -> str:
    value = data.get(field)
    if value is None:
        if required:
            raise HookInputError(f"hook input has no {field!r}")
        return ""
    if not isinstance(value, str):
        raise HookInputError(
            f"hook input field {field!r} must be a string, not {type(value).__name__}"
        )
    if required and not value:
        raise HookInputError(f"hook input field {field!r} is empty")
    return value


def _mapping(data: Mapping[str, Any], field: str) -> dict[str, Any]:
    value = data.get(field)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise HookInputError(
            f"hook input field {field!r} must be an object, not {type(value).__name__}"
        )
    return value


def _number(data: Mapping[str, Any], field: str) -> float | None:
    value = data.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HookInputError(
            f"hook input field {field!r} must be a number, not {type(value).__name__}"
        )
    if not math.isfinite(value):
        raise HookInputError(f"hook input field {field!r} must be a finite number, not {value}")
    return float(value)


def _response_text(response: Any) -> str:
    """Tool response as the text the agent saw: Bash stdout/stderr, file content, MCP blocks,
    WebFetch's answer …"""
    if response is None:
        return ""
    if isinstance(response, str):
        return response
    if isinstance(response, list):
        return result_text(response)
    if isinstance(response, dict):
        if "stdout" in response or "stderr" in response:
            parts = [str(response.get("stdout") or ""), str(response.get("stderr") or "")]
            return "\n".join(part for part in parts if part)
        file = response.get("file")
        if isinstance(file, dict) and isinstance(file.get("content"), str):
            return str(file["content"])
        content = response.get("content")
        if isinstance(content, str | list):
            return result_text(content)
        if isinstance(response.get("result"), str):  # WebFetch: the answer the agent read
            return str(response["result"])
    return json.dumps(response, sort_keys=True, ensure_ascii=False, default=str)
