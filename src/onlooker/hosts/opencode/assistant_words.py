"""What the assistant wrote in opencode, for projects whose reviewers read the conversation
(specs/hosts.md, "The assistant's words").

opencode's hooks carry the prompt and the tool calls; the assistant's text and reasoning are
message parts. The plugin forwards each completed one once (a `message.part.updated` bus event
whose part has `time.end`, of an assistant message), never a streamed delta:
`{"type": "message.part.updated", "properties": {"part": {"id", "sessionID", "messageID",
"type": "text" | "reasoning", "text", "time": {"start"}}}}` (`time` when the plugin knows it:
the message is stamped with when the part began). It becomes an AssistantMessage of the part's
session (a subagent's own session for a task's child session), kept only for a project with an
enabled conversation reviewer, a reasoning part only when one of them takes `include_reasoning`,
as in Claude Code. The part's id is the event's input id, so a part sent twice is recorded once.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ...core.events import AssistantMessage
from ...runtime import Runtime
from ...text.clipping import clip
from ..claude_code.transcript_tail import MESSAGE_LIMIT

PART_UPDATED = "message.part.updated"
"""The bus event the plugin forwards a completed part in."""


def is_part(hook: str, inputs: Mapping[str, Any]) -> bool:
    """Whether a forwarded hook is a completed part of the assistant's."""
    return hook == "event" and inputs.get("type") == PART_UPDATED


def said(
    inputs: Mapping[str, Any], runtime: Runtime, cwd: str, now: datetime
) -> AssistantMessage | None:
    """The AssistantMessage a forwarded part stands for (None: nobody reads it, or no words)."""
    setup = runtime.review_setup(cwd)
    watch = setup.conversation if setup is not None else None
    if watch is None:
        return None
    properties = inputs.get("properties")
    found = properties.get("part") if isinstance(properties, Mapping) else None
    part: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    kind, text, part_id = (_text(part, field) for field in ("type", "text", "id"))
    if not text.strip():
        return None
    kept = clip(text, MESSAGE_LIMIT)
    input_id = f"part:{part_id}"[:64] if part_id else ""
    at = _began(part, now)
    if kind == "text":
        return AssistantMessage(at=at, text=kept, input_id=input_id)
    if kind == "reasoning" and watch.include_reasoning:
        return AssistantMessage(at=at, reasoning=kept, input_id=input_id)
    return None


def _began(part: Mapping[str, Any], now: datetime) -> datetime:
    """When the part began (`time.start`, ms since the epoch), else `now`: a part can reach the
    service after the hook of the tool call it led to, and a conversation reviewer puts words
    back before the calls that began after them (reviewers/watch.py)."""
    time = part.get("time")
    start = time.get("start") if isinstance(time, Mapping) else None
    if isinstance(start, bool) or not isinstance(start, int | float) or start <= 0:
        return now
    try:
        began = datetime.fromtimestamp(start / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return now
    return min(began, now)


def _text(data: Mapping[str, Any], field: str) -> str:
    value = data.get(field)
    return value if isinstance(value, str) else ""
