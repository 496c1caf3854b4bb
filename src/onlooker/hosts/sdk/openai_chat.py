"""OpenAI chat-completions tool loops: each executed call recorded, feedback in the tool message.

`tool_message(engine, tool_call, result, is_error=failed)` gives the `{"role": "tool", ...}`
message to append, its content the tool's result with the feedback after a blank line; a call
that failed must say so (`is_error=True`), or it is recorded as a success. No `openai` import.
"""

from __future__ import annotations

from typing import Any

from ...core.events import ToolCall
from ._tool_loop import (
    Recorder,
    afeedback_for,
    feedback_for,
    field_of,
    tool_call_event,
    with_feedback,
)

__all__ = ["atool_message", "tool_message"]


def tool_message(
    engine: Recorder,
    tool_call: Any,
    result: str,
    *,
    is_error: bool = False,
    error: str | None = None,
    duration_ms: float | None = None,
    session_id: str = "",
) -> dict[str, Any]:
    """Record one executed tool call; return the tool message for the next request.

    `tool_call` is an entry of the assistant message's `tool_calls`: the `openai` object
    (`ChatCompletionMessageFunctionToolCall`, or a custom tool call) or its dict form
    `{"id", "type": "function", "function": {"name", "arguments"}}`. `result` is the text the
    model is to see; `is_error` marks a failed call, and `error` may give the loop's own account
    of the failure for the record (the model still sees `result`). `engine` is an Engine, or a
    Runtime with a store (then `session_id` names the session the call belongs to).
    """
    event = _event(engine, tool_call, result, is_error, error, duration_ms)
    return _message(event, result, feedback_for(engine, event, session_id=session_id))


async def atool_message(
    engine: Recorder,
    tool_call: Any,
    result: str,
    *,
    is_error: bool = False,
    error: str | None = None,
    duration_ms: float | None = None,
    session_id: str = "",
) -> dict[str, Any]:
    """`tool_message` for loops inside an event loop (`AsyncOpenAI`)."""
    event = _event(engine, tool_call, result, is_error, error, duration_ms)
    return _message(event, result, await afeedback_for(engine, event, session_id=session_id))


def _event(
    engine: Recorder,
    tool_call: Any,
    result: str,
    is_error: bool,
    error: str | None,
    duration_ms: float | None,
) -> ToolCall:
    call_id, name, arguments = _call_parts(tool_call)
    return tool_call_event(
        engine,
        name=name,
        arguments=arguments,
        result=result,
        is_error=is_error,
        error=error,
        call_id=call_id,
        duration_ms=duration_ms,
    )


def _message(event: ToolCall, result: str, feedback: str) -> dict[str, Any]:
    return {
        "role": "tool",
        "tool_call_id": event.call_id,
        "content": with_feedback(result, feedback),
    }


def _call_parts(tool_call: Any) -> tuple[str, str, Any]:
    """(id, name, arguments) of a function or custom tool call, object or dict."""
    call_id = field_of(tool_call, "id")
    kind = field_of(tool_call, "type") or "function"
    body = field_of(tool_call, kind)
    if body is None:
        raise ValueError(f"tool call {call_id!r} has no {kind!r} part")
    name = field_of(body, "name")
    arguments = field_of(body, "arguments" if kind == "function" else "input")
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise ValueError(f"tool call needs a string id and name, got {call_id!r} and {name!r}")
    return call_id, name, arguments
