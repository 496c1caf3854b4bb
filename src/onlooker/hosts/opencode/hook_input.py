"""What onlooker's opencode plugin sends the hook service, and what it gets back.

The plugin forwards each opencode hook as `{"host": "opencode", "hook": <name>, "session_id",
"cwd", "input": {...}, "output": {...}}`; `answer(data, runtime, now)` turns it into an Arrival,
hands it to the Runtime and says what the plugin should do with the Delivery:

| hook | event | answer |
| --- | --- | --- |
| `event` session.created | SessionStarted (its parent, for a subagent's session) | held |
| `event` session.idle | TurnEnded | held |
| `event` session.compacted | SessionStarted, source compact | held |
| `event` session.deleted | SessionEnded | held |
| `event` message.part.updated | AssistantMessage (a completed part: assistant_words.py) | held |
| `chat.message` | UserPrompt (its text parts) | `notice`: for the user (logged, a toast) |
| `tool.execute.after` | ToolCall (failed: a non-zero exit code) | `append`: after the output |
| `experimental.session.compacting` | Compacting | `context`: into the compaction |
| `tool` observations | (the observations tool) | `output`: its JSON answer |
| `tool` observer_* | (the observer tools, observer.py) | `output`: the tool's answer |
| `command.execute.before` observer | (`/observer NAME ARGS`, observer.py) | `prompt`: the answer |

Plugins cannot add messages: what is held is delivered with the session's next tool output or
compaction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ...core.events import (
    Compacting,
    Event,
    SessionEnded,
    SessionStarted,
    ToolCall,
    TurnEnded,
    UserPrompt,
)
from ...errors import HookInputError
from ...runtime import Arrival, Runtime
from ...runtime.next_turn import open_observations_text
from ...store.tool import ObservationsTool
from ...text.clipping import clip, clip_values
from .assistant_words import is_part, said
from .observer import COMMAND, TOOL_NAMES, command_text, project_of, tool_text

HOST = "opencode"
DELIVERED_AT = frozenset({"tool.execute.after", "experimental.session.compacting"})
"""Hooks whose answer reaches the model: the tool's output, the compaction's context."""
TOOLS = ("observations",)
FILTERS = ("status", "severity", "observer")
"""The custom tools the plugin offers, each answered here."""


def answer(data: Mapping[str, Any], runtime: Runtime, now: datetime) -> dict[str, Any]:
    """What the plugin does for one forwarded hook ({} for nothing)."""
    hook = _text(data, "hook")
    session_id = _text(data, "session_id")
    cwd = _text(data, "cwd")
    if not hook or not session_id:
        raise HookInputError("opencode input needs `hook` and `session_id`")
    given = data.get("input")
    found = data.get("output")
    inputs: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    outputs: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    if hook == "tool":
        name = _text(inputs, "name")
        if name in TOOL_NAMES:
            return {"output": tool_text(runtime, cwd, session_id, name, inputs.get("args"))}
        return {"output": _tool(inputs, runtime, cwd, session_id)}
    if hook == "command.execute.before":
        if _text(inputs, "command") != COMMAND:
            return {}
        arguments = _text(inputs, "arguments")
        return {"prompt": command_text(runtime, cwd, session_id, arguments)}
    if is_part(hook, inputs):
        message = said(inputs, runtime, cwd, now)
        if message is not None:
            runtime.handle(Arrival(message, session_id, cwd=cwd, deliverable=False, host=HOST))
        return {}
    event = event_of(hook, inputs, outputs, now=now, cwd=cwd)
    if event is None:
        return {}
    arrival = Arrival(event, session_id, cwd=cwd, deliverable=hook in DELIVERED_AT, host=HOST)
    delivery = runtime.handle(arrival)
    if hook == "chat.message":
        return {"notice": delivery.notice} if delivery.notice else {}
    if hook == "tool.execute.after":
        return {"append": delivery.context} if delivery.context else {}
    if hook == "experimental.session.compacting":
        parts = [delivery.context, _open_observations(runtime, cwd)]
        context = [part for part in parts if part]
        return {"context": context} if context else {}
    return {}


def event_of(
    hook: str, inputs: Mapping[str, Any], outputs: Mapping[str, Any], *, now: datetime, cwd: str
) -> Event | None:
    """The event a forwarded hook stands for (None for one onlooker does not record)."""
    if hook == "event":
        return _bus_event(inputs, now, cwd)
    if hook == "chat.message":
        return UserPrompt(at=now, text=clip(_text(outputs, "text")), agent=_text(inputs, "agent"))
    if hook == "tool.execute.after":
        metadata = outputs.get("metadata")
        code = metadata.get("exit") if isinstance(metadata, Mapping) else None
        failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
        text = clip(_text(outputs, "output"))
        args = inputs.get("args")
        return ToolCall(
            at=now,
            call_id=_text(inputs, "callID"),
            tool=_text(inputs, "tool") or "tool",
            input=dict(clip_values(dict(args))) if isinstance(args, Mapping) else {},
            output=text,
            ok=not failed,
            error=text if failed else None,
        )
    if hook == "experimental.session.compacting":
        return Compacting(at=now, trigger="auto")
    return None


def _bus_event(inputs: Mapping[str, Any], now: datetime, cwd: str) -> Event | None:
    kind = _text(inputs, "type")
    found = inputs.get("properties")
    properties: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    info = properties.get("info")
    session: Mapping[str, Any] = info if isinstance(info, Mapping) else {}
    if kind == "session.created":
        return SessionStarted(
            at=now,
            cwd=_text(session, "directory") or cwd,
            parent_session_id=_text(session, "parentID"),
            agent_name=_text(session, "title") if _text(session, "parentID") else "",
            host=HOST,
        )
    if kind == "session.idle":
        return TurnEnded(at=now)
    if kind == "session.compacted":
        return SessionStarted(at=now, source="compact", cwd=cwd, host=HOST)
    if kind == "session.deleted":
        return SessionEnded(at=now, reason="deleted")
    return None


def _tool(inputs: Mapping[str, Any], runtime: Runtime, cwd: str, session_id: str) -> str:
    """A custom tool's answer: its arguments as the tool's request (`status`, `severity` and
    `observer` are list filters)."""
    name = _text(inputs, "name")
    if name not in TOOLS or runtime.store is None:
        return json.dumps({"status": "error", "error": f"onlooker has no tool {name!r}"})
    given = inputs.get("args")
    args = (
        {k: v for k, v in given.items() if v not in (None, "")}
        if isinstance(given, Mapping)
        else {}
    )
    filters = {k: args.pop(k) for k in FILTERS if k in args}
    request = {**args, "filters": filters} if filters else args
    tool = ObservationsTool(runtime.store, project=project_of(runtime, cwd), session_id=session_id)
    return json.dumps(tool(request), ensure_ascii=False, default=str)


def _open_observations(runtime: Runtime, cwd: str) -> str:
    if runtime.store is None:
        return ""
    return open_observations_text(runtime.store, project_of(runtime, cwd))


def _text(data: Mapping[str, Any], field: str) -> str:
    value = data.get(field)
    return value if isinstance(value, str) else ""
