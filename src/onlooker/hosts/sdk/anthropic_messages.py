"""Anthropic messages tool loops: each executed tool_use recorded, feedback in its tool_result.

`tool_result_block(engine, tool_use, result, is_error=failed)` gives the block for the next user
message; feedback is an extra text block after the tool's own content, which stays as it was. A
call that failed must say so (`is_error=True`), or it is recorded as a success. No `anthropic`
import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.events import ToolCall
from ..claude_code.content import result_text
from ._tool_loop import Recorder, afeedback_for, feedback_for, field_of, tool_call_event

__all__ = ["atool_result_block", "tool_result_block"]

ToolResultContent = str | list[dict[str, Any]]
"""What a tool_result carries: a string, or text/image/document blocks."""


def tool_result_block(
    engine: Recorder,
    tool_use: Any,
    result: ToolResultContent,
    *,
    is_error: bool = False,
    error: str | None = None,
    duration_ms: float | None = None,
    session_id: str = "",
) -> dict[str, Any]:
    """Record one executed tool call; return its `tool_result` block.

    `tool_use` is the assistant's `tool_use` block: the `anthropic` `ToolUseBlock` or its dict
    form `{"type": "tool_use", "id", "name", "input"}`. `result` is what the model is to see, a
    string or a list of content blocks. Without feedback the block carries `result` unchanged;
    with feedback its content is a list: the result's blocks (a string becomes one text block,
    an empty one none, since the API refuses empty text blocks), then one text block with the
    feedback. `is_error` sets the block's `is_error`; `error` may give the loop's own account of
    the failure for the record. `engine` is an Engine, or a Runtime with a store (then
    `session_id` names the session the call belongs to).
    """
    event = _event(engine, tool_use, result, is_error, error, duration_ms)
    return _block(event, result, feedback_for(engine, event, session_id=session_id))


async def atool_result_block(
    engine: Recorder,
    tool_use: Any,
    result: ToolResultContent,
    *,
    is_error: bool = False,
    error: str | None = None,
    duration_ms: float | None = None,
    session_id: str = "",
) -> dict[str, Any]:
    """`tool_result_block` for loops inside an event loop (`AsyncAnthropic`)."""
    event = _event(engine, tool_use, result, is_error, error, duration_ms)
    return _block(event, result, await afeedback_for(engine, event, session_id=session_id))


def _event(
    engine: Recorder,
    tool_use: Any,
    result: ToolResultContent,
    is_error: bool,
    error: str | None,
    duration_ms: float | None,
) -> ToolCall:
    call_id, name, arguments = (field_of(tool_use, key) for key in ("id", "name", "input"))
    if not isinstance(call_id, str) or not isinstance(name, str):
        raise ValueError(f"tool_use needs a string id and name, got {call_id!r} and {name!r}")
    if arguments is not None and not isinstance(arguments, Mapping):
        raise ValueError(f"tool_use {call_id!r} input must be an object, got {arguments!r}")
    return tool_call_event(
        engine,
        name=name,
        arguments=arguments,
        result=result_text(result),
        is_error=is_error,
        error=error,
        call_id=call_id,
        duration_ms=duration_ms,
    )


def _block(event: ToolCall, result: ToolResultContent, feedback: str) -> dict[str, Any]:
    content: ToolResultContent = result
    if feedback:
        blocks = [{"type": "text", "text": result}] if isinstance(result, str) else list(result)
        content = [block for block in blocks if block != {"type": "text", "text": ""}]
        content.append({"type": "text", "text": feedback})
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": event.call_id,
        "content": content,
    }
    if event.ok is False:
        block["is_error"] = True
    return block
