"""What a host hands the Runtime (an Arrival: an event and where it happened) and what it gets
back (a Delivery: the text to put into the agent's context now, and a reason to block, if any).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.engine import Dispatch
from ..core.events import Event, SubagentStarted, SubagentStopped


@dataclass(frozen=True, slots=True)
class Arrival:
    """One event from a host, with the session, folder and agent it belongs to."""

    event: Event
    session_id: str
    """The host's session; a subagent's events carry their parent's id and their `agent_id`."""
    cwd: str = ""
    """The folder the agent works in: it names the project (its config, findings, memory)."""
    agent_id: str = ""
    """Set when the event happened inside a subagent (and for a subagent's start and stop)."""
    agent_type: str = ""
    deliverable: bool = True
    """Whether the host can put context into the agent at this event. When it cannot, the
    feedback is held and delivered with the session's next deliverable event."""
    host: str = ""
    """The host when it shows notices per session (opencode); '' for Claude Code, which shows a
    project's notices at its next prompt."""

    @property
    def session_key(self) -> str:
        """The onlooker session the event belongs to: a subagent's events form their own
        session; its start and stop belong to the parent."""
        if self.agent_id and not isinstance(self.event, SubagentStarted | SubagentStopped):
            return subagent_session_id(self.session_id, self.agent_id)
        return self.session_id


@dataclass(frozen=True, slots=True)
class Delivery:
    """What the host delivers for one arrival."""

    context: str = ""
    """The text to put into the agent's context now ('' for nothing)."""
    block: str = ""
    """A reason to stop the agent's step ('' for none), where the host allows blocking."""
    dispatch: Dispatch | None = None
    """The engine's result for the event (its assessments and failures)."""
    notice: str = ""
    """A message for the user, not the agent ('' for none): scores, improvements."""


def subagent_session_id(session_id: str, agent_id: str) -> str:
    """The session of a subagent's own events."""
    return f"{session_id}/{agent_id}"


def joined(*parts: str) -> str:
    return "\n\n".join(part for part in parts if part)
