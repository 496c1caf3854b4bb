"""A tool call in an agent loop that your own code runs, recorded through the Runtime.

What the plain-loop and OpenAI Agents adapters share: an engine or a runtime to record through,
arguments read from JSON, the ToolCall event, and feedback after the tool's output and a blank line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from ...core.engine import Engine
from ...core.events import ToolCall
from ...core.feedback import SEPARATOR
from ...runtime import Arrival, Runtime
from ...text.clipping import clip


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


Recorder = Engine | Runtime
"""What a loop records through: an Engine (observers only, nothing kept) or a Runtime (with a
store: journal, findings, memory, reviewers)."""


def runtime_of(recorder: Recorder) -> Runtime:
    """The runtime to record through: `recorder` itself, or one around an engine."""
    return recorder if isinstance(recorder, Runtime) else Runtime.around(recorder)


def feedback_for(recorder: Recorder, event: ToolCall, *, session_id: str = "") -> str:
    """Record a loop's tool call through the Runtime; the feedback to deliver with its result."""
    return runtime_of(recorder).handle(_arrival(recorder, event, session_id)).context


async def afeedback_for(recorder: Recorder, event: ToolCall, *, session_id: str = "") -> str:
    """`feedback_for` inside an event loop: async observers run concurrently."""
    return (await runtime_of(recorder).ahandle(_arrival(recorder, event, session_id))).context


def _arrival(recorder: Recorder, event: ToolCall, session_id: str) -> Arrival:
    """A loop's tool call as the Runtime takes it (a loop delivers after every tool call). A
    runtime's loop works in the process's folder: it names the project and its config."""
    if isinstance(recorder, Engine):
        return Arrival(event, session_id or recorder.session.id)
    return Arrival(event, session_id, cwd=os.getcwd())


def tool_call_event(
    recorder: Recorder,
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
        at=recorder.clock.now(),
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
    """The tool's text with the feedback after a blank line (how OpenAI-style hosts deliver)."""
    if not feedback:
        return text
    return f"{text}{SEPARATOR}{feedback}" if text else feedback
