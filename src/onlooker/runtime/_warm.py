"""A warm session: the engine holding it, its project and config, whether memory is on, and what
it could not deliver yet; and the checks the runtime makes on arriving events (specs/runtime.md).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TypeVar

from ..config import Loaded
from ..core.engine import Engine
from ..core.events import Event, SessionStarted, ToolCall
from ..memory.settings import MemorySettings
from ..store.home import project_key
from ._arrival import Arrival

E = TypeVar("E", bound=Event)


@dataclass
class Warm:
    """A session kept in memory between arrivals, with what the runtime knows of it."""

    engine: Engine
    project: str
    loaded: Loaded
    memory: MemorySettings
    remember: bool
    """Memory is on for the project (enabled, no `.onlooker/no-memory` marker)."""
    unsaved: int = 0
    busy: int = 0
    """Arrivals of this session being handled now (a busy session is never evicted)."""
    held: str = ""
    """Feedback of events the host could not deliver at, for its next delivery point."""


def seen(warm: Warm, event: Event) -> bool:
    """An input the session already holds: a hook sent again after its client gave up or saw
    the connection reset, or a spooled input replayed. Told by the input's id (any event), or
    a tool call's id. It is recorded once, and answered with nothing."""
    session = warm.engine.session
    input_id = event.input_id
    call_id = event.call_id if isinstance(event, ToolCall) else ""
    if input_id and call_id and type(event) is ToolCall:  # both ids: one pass over the calls
        return any(
            call.input_id == input_id or call.call_id == call_id for call in session[ToolCall].all()
        )
    if input_id and any(held.input_id == input_id for held in session[type(event)].all()):
        return True
    return bool(call_id) and any(call.call_id == call_id for call in session[ToolCall].all())


def project_name(loaded: Loaded, arrival: Arrival, shared: bool) -> str:
    """The store key of the session's project: its canonical root's identity (its remote's in a
    shared store)."""
    if not arrival.cwd:
        return "default"
    return project_key(loaded.root, shared=shared)


def with_deadline(event: E, loaded: Loaded) -> E:
    """A session start gets the deadline the project config sets (`trajectory.deadline_minutes`)."""
    if isinstance(event, SessionStarted) and event.deadline is None and loaded.deadline:
        return dataclasses.replace(event, deadline=event.at + loaded.deadline)
    return event
