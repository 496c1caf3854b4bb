"""Amplifier's hook events as onlooker events: which ones onlooker listens to, what each one's data
becomes, and whether an orchestrator puts a hook's answer to it into the agent's context.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ...core.events import (
    AssistantMessage,
    Compacting,
    Event,
    SessionEnded,
    SessionStarted,
    ToolCall,
    TurnEnded,
    UserPrompt,
)
from ...text.clipping import clip, clip_values

#: The events the module registers for, in the order a session sees them.
EVENTS = (
    "session:start",
    "prompt:submit",
    "tool:post",
    "tool:error",
    "content_block:end",
    "orchestrator:complete",
    "context:pre_compact",
    "session:end",
)

HOST = "amplifier"
"""The host a session's start names (specs/serve.md)."""

DELIVERED_AT = frozenset({"prompt:submit", "tool:post"})
"""Events whose HookResult orchestrators hand to `coordinator.process_hook_result` (loop-basic,
loop-streaming): an `inject_context` answer there reaches the model. At the others the kernel or
the orchestrator only emits, so what observers say is held for the next of these."""


def event_of(name: str, data: Mapping[str, Any], *, at: datetime, cwd: str) -> Event | None:
    """The onlooker event for one Amplifier hook event (None for an event onlooker ignores)."""
    if name == "session:start":
        parent = data.get("parent_id")
        return SessionStarted(
            at=at,
            cwd=cwd,
            parent_session_id=parent if isinstance(parent, str) else "",
            host=HOST,
        )
    if name == "prompt:submit":
        return UserPrompt(at=at, text=_text(data.get("prompt")))
    if name == "tool:post":
        return _tool_post(data, at)
    if name == "tool:error":
        error = data.get("error")
        message = error.get("msg") if isinstance(error, Mapping) else error
        return ToolCall(
            at=at,
            call_id=_text(data.get("tool_call_id")),
            tool=_text(data.get("tool_name")) or "tool",
            input=_input(data.get("tool_input")),
            ok=False,
            error=clip(_text(message) or "the tool failed"),
        )
    if name == "content_block:end":
        return _said(data.get("block"), at)
    if name == "orchestrator:complete":
        return TurnEnded(at=at)
    if name == "context:pre_compact":
        return Compacting(at=at, trigger="auto")
    if name == "session:end":
        return SessionEnded(at=at, reason=_text(data.get("status")))
    return None


def _tool_post(data: Mapping[str, Any], at: datetime) -> ToolCall:
    """A tool:post's `result` is the ToolResult as a dict: success, output, error."""
    result = data.get("result")
    ok, output, error = True, result, None
    if isinstance(result, Mapping):
        ok = result.get("success") is not False
        output = result.get("output")
        failure = result.get("error")
        if not ok:
            message = failure.get("message") if isinstance(failure, Mapping) else failure
            error = clip(_text(message) or _text(output) or "the tool failed")
    return ToolCall(
        at=at,
        call_id=_text(data.get("tool_call_id")),
        tool=_text(data.get("tool_name")) or "tool",
        input=_input(data.get("tool_input")),
        output=clip(_text(output)),
        ok=ok,
        error=error,
    )


def _said(block: Any, at: datetime) -> AssistantMessage | None:
    """A text or thinking block the model answered (loop-basic's `block.to_dict()`), as what the
    assistant wrote; a tool call block is its tool's own event."""
    if not isinstance(block, Mapping):
        return None
    kind = block.get("type")
    if kind == "text":
        text = _text(block.get("text"))
        return AssistantMessage(at=at, text=clip(text)) if text.strip() else None
    if kind == "thinking":
        thought = _text(block.get("thinking") or block.get("text"))
        return AssistantMessage(at=at, reasoning=clip(thought)) if thought.strip() else None
    return None


def _input(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(clip_values(dict(value)))
    return {} if value is None else {"arguments": clip_values(value)}


def _text(value: Any) -> str:
    """Text as the model saw it: a string as it is, anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
