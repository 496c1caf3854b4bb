"""An OpenAI chat `messages` list (the request body of a tool loop) read into events.

`messages_to_events` says what becomes what, and when a tool message counts as a failure.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from ...core.clock import parse_time, utc
from ...core.events import (
    EPOCH,
    AssistantMessage,
    Event,
    SessionStarted,
    ToolCall,
    UserPrompt,
    clip,
)
from ..claude_code.transcript import Tally

_ERROR_PREFIXES = ("error", "exception", "traceback", "failed")


def messages_to_events(
    messages: list[Any], session_id: str, tally: Tally, *, cwd: str = ""
) -> list[Event]:
    """Events for a chat `messages` list; `tally` receives what was skipped or malformed.

    Messages carry no times unless they have a `timestamp` (ISO 8601 or epoch seconds); otherwise
    message i is stamped EPOCH + i seconds, so a replay sees one second pass per message.

    - `user` → UserPrompt (text parts joined). `system` and `developer` messages are not prompts:
      they are the harness's instructions, and taking them as the task would mislead Drift; they are
      skipped.
    - `assistant` content → AssistantMessage; its `tool_calls` (function name, JSON arguments) wait
      for the `tool` message with the same `tool_call_id` and become ToolCalls at that message's
      time.
    - A tool message is a failure (ok=False, error=its text) when its text, stripped, starts with
      "error", "exception", "traceback" or "failed" (any case), or is a JSON object whose `error` is
      set (not null/false/"") or whose `is_error` is true or whose `status` is "error".
    - Anything of the wrong shape (a message that is not an object, an unknown role, arguments that
      are not JSON) is counted as malformed with its 1-based position in the list; tool calls never
      answered are dropped and counted.
    """
    events: list[Event] = []
    waiting: dict[str, tuple[str, dict[str, Any], datetime]] = {}

    def emit(kind: Callable[..., Event], at: datetime, **fields: Any) -> None:
        events.append(kind(session_id=session_id, seq=len(events) + 1, at=at, **fields))

    project = cwd.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    emit(SessionStarted, _stamp(messages[0] if messages else None, 0), cwd=cwd, project=project)
    calls = 0
    for position, message in enumerate(messages, 1):
        if not isinstance(message, dict):
            tally.bad(position)
            continue
        role = message.get("role")
        at = _stamp(message, position)
        if role in ("system", "developer"):
            tally.skipped += 1
        elif role == "user":
            text = content_text(message.get("content"))
            if text.strip():
                emit(UserPrompt, at, text=text)
            else:
                tally.skipped += 1
        elif role == "assistant":
            text = content_text(message.get("content"))
            reasoning = message.get("reasoning_content") or message.get("reasoning") or ""
            if text.strip() or (isinstance(reasoning, str) and reasoning.strip()):
                emit(AssistantMessage, at, text=text, reasoning=str(reasoning))
            if not _wait_for_calls(message.get("tool_calls"), at, waiting):
                tally.bad(position)
        elif role == "tool":
            pending = waiting.pop(str(message.get("tool_call_id")), None)
            if pending is None:
                tally.bad(position)
                continue
            name, arguments, began = pending
            text = clip(content_text(message.get("content")))
            failed = looks_like_error(text)
            calls += 1
            emit(
                ToolCall,
                at,
                call_id=str(message.get("tool_call_id")),
                tool=name,
                input=arguments,
                output=text,
                ok=not failed,
                error=text if failed else None,
                duration_ms=max((at - began).total_seconds() * 1000, 0.0),
                index=calls,
            )
        else:
            tally.bad(position)
    tally.unanswered += len(waiting)
    return events


def _wait_for_calls(
    tool_calls: Any, at: datetime, waiting: dict[str, tuple[str, dict[str, Any], datetime]]
) -> bool:
    """Remember an assistant's tool calls by id; False when one is malformed."""
    if tool_calls is None:
        return True
    if not isinstance(tool_calls, list):
        return False
    for call in tool_calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            return False
        raw = function.get("arguments") or "{}"
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            return False
        if not isinstance(arguments, dict):
            arguments = {"arguments": arguments}
        waiting[str(call.get("id"))] = (function["name"], arguments, at)
    return True


def content_text(content: Any) -> str:
    """Text of a message content: a string, or a list of parts (`text`, `input_text`, …)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append(part["text"])
    return "\n".join(parts)


def looks_like_error(text: str) -> bool:
    """The rule for a failed tool message (see the module docstring)."""
    head = text.lstrip()[:16].lower()
    if head.startswith(_ERROR_PREFIXES):
        return True
    if not head.startswith("{"):
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    return (
        data.get("error") not in (None, False, "")
        or data.get("is_error") is True
        or data.get("status") == "error"
    )


def _stamp(message: Any, position: int) -> datetime:
    value = message.get("timestamp") if isinstance(message, dict) else None
    try:
        if isinstance(value, str):
            return parse_time(value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return utc(datetime.fromtimestamp(value, tz=EPOCH.tzinfo))
    except (ValueError, OverflowError, OSError):
        pass
    return EPOCH + timedelta(seconds=position)
