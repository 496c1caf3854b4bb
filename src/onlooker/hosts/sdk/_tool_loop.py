"""A tool call in an agent loop that your own code runs, recorded through an engine.

What the plain-loop and OpenAI Agents adapters share: arguments read from JSON, the ToolCall event,
and the rule that feedback follows the tool's own output after a blank line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...text.clipping import clip
from ...core.engine import Engine
from ...core.events import ToolCall
from ...core.feedback import SEPARATOR


def tool_arguments(arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """Tool arguments as a dict: a JSON object string is parsed; anything else is kept whole.

    Models sometimes send arguments that are not a JSON object (a bare string, broken JSON); those
    are recorded as `{"arguments": <the raw text>}` rather than dropped.
    """
    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not arguments.strip():
        return {}
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return {"arguments": arguments}
    return parsed if isinstance(parsed, dict) else {"arguments": parsed}


def tool_call_event(
    engine: Engine,
    *,
    name: str,
    arguments: str | Mapping[str, Any] | None,
    result: str,
    is_error: bool = False,
    error: str | None = None,
    call_id: str = "",
    duration_ms: float | None = None,
) -> ToolCall:
    """The ToolCall for one executed call, stamped with the engine's clock.

    `result` is what the model is shown; `error` (defaulting to `result`) is the failure as known
    to the loop, which may say more than the model was told.
    """
    return ToolCall(
        at=engine.clock.now(),
        call_id=call_id,
        tool=name,
        input=tool_arguments(arguments),
        output=clip(result),
        ok=not is_error,
        error=clip(error if error is not None else result) if is_error else None,
        duration_ms=duration_ms,
    )


def field_of(value: Any, name: str) -> Any:
    """A field of an SDK object (`call.id`) or of its dict form (`call["id"]`); None if absent."""
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


def with_feedback(text: str, feedback: str) -> str:
    """The tool's text with the feedback after a blank line (seed 001's OpenAI delivery)."""
    if not feedback:
        return text
    return f"{text}{SEPARATOR}{feedback}" if text else feedback
