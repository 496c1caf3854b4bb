"""What happens in an agent session, as frozen records: the input of the whole pipeline.

Every event has `session_id`, `seq` (monotonic in its session, set when appended) and `at` (UTC).
The config's hook names (specs/config.md) map onto kinds: message:received = UserPrompt,
response:complete = TurnEnded, tool:post = ToolCall. Every kind: specs/session.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .records import Record, record

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

#: Tool-call outputs are kept to this many characters (head and tail) inside the session.
OUTPUT_LIMIT = 2000


@dataclass(frozen=True, slots=True, kw_only=True)
class Event(Record):
    """Base of all events."""

    session_id: str = ""
    """The session this event belongs to."""
    seq: int = 0
    """Position in the session (1-based), assigned by `Session.append` when left at 0."""
    at: datetime = EPOCH
    """When it happened, in UTC."""
    input_id: str = field(default="", metadata={"omit_empty": True})
    """The id of the host input this event came from (a hook client's, kept when it resends or
    spools that input): an input that arrives twice is recorded once. '' when unknown."""


@record("session_started")
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStarted(Event):
    """A session began or was resumed."""

    source: str = "startup"
    """startup | resume | clear | compact (Claude Code's SessionStart source)."""
    cwd: str = ""
    """Working directory; taken as the project root."""
    project: str = ""
    """Project name (defaults to the last part of cwd)."""
    agent_name: str = ""
    """Agent name or id, for subagent sessions."""
    agent_type: str = ""
    """Agent type (Claude Code subagent_type), for subagent sessions."""
    parent_session_id: str = ""
    """The session that started this one, for subagents."""
    deadline: datetime | None = None
    """When the agent must be done, if it has a time budget."""
    host: str = field(default="", metadata={"omit_empty": True})
    """The host adapter that ran the session (`claude-code`, `opencode`, `amplifier`,
    `claude-agent-sdk`, `openai-agents`); '' when unknown (older journals, plain loops)."""


@record("user_prompt")
@dataclass(frozen=True, slots=True, kw_only=True)
class UserPrompt(Event):
    """The user (or the harness) sent a message: the config's message:received hook."""

    text: str = ""
    agent: str = ""
    """The primary agent the host says the message is for (opencode's `build`, `plan`, …)."""


@record("assistant_message")
@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessage(Event):
    """Text the agent wrote, with its visible reasoning if any."""

    text: str = ""
    reasoning: str = ""


@record("tool_call")
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall(Event):
    """A tool call that completed, with its result: the config's tool:post hook."""

    call_id: str = ""
    """The host's id for the call (Claude Code tool_use_id)."""
    tool: str = ""
    """Tool name, e.g. Bash, Read, Edit, mcp__server__tool."""
    input: dict[str, Any] = field(default_factory=dict)
    """Arguments as the agent passed them."""
    output: str = ""
    """Result text as the agent saw it, clipped to OUTPUT_LIMIT characters (head and tail)."""
    ok: bool = True
    """False when the tool reported an error."""
    error: str | None = None
    """Error text when not ok."""
    duration_ms: float | None = None
    """How long the call took, when known."""
    result: dict[str, Any] | None = None
    """Structured result as the host reported it (toolUseResult / tool_response), clipped."""
    index: int = 0
    """1-based position among the session's tool calls, assigned by `Session.append`."""

    @property
    def paths(self) -> tuple[str, ...]:
        """File paths the call names in its input (file tools; not shell commands)."""
        get = self.input.get  # asked of every call by reducers and observers: kept cheap
        first, notebook, path = get("file_path"), get("notebook_path"), get("path")
        if notebook is None and path is None:  # most calls: one of them at most
            return (first,) if isinstance(first, str) and first else ()
        return tuple(v for v in (first, notebook, path) if isinstance(v, str) and v)


@record("plan_updated")
@dataclass(frozen=True, slots=True, kw_only=True)
class PlanUpdated(Event):
    """An explicit plan: the whole list of steps as it stands now."""

    steps: tuple[PlanStep, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanStep:
    """One step of a plan (a Claude Code todo)."""

    content: str = ""
    status: str = "pending"
    """pending | in_progress | completed"""
    active_form: str = ""
    id: str = ""
    """The host's task id (Claude Code TaskCreate), when steps are addressed by id."""

    @property
    def done(self) -> bool:
        return self.status == "completed"


@record("subagent_started")
@dataclass(frozen=True, slots=True, kw_only=True)
class SubagentStarted(Event):
    agent_id: str = ""
    agent_type: str = ""


@record("subagent_stopped")
@dataclass(frozen=True, slots=True, kw_only=True)
class SubagentStopped(Event):
    agent_id: str = ""
    agent_type: str = ""
    transcript_path: str = ""
    last_message: str = ""


@record("compacting")
@dataclass(frozen=True, slots=True, kw_only=True)
class Compacting(Event):
    """The host is about to compact the context (Claude Code PreCompact)."""

    trigger: str = "auto"
    """manual | auto"""


@record("turn_ended")
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEnded(Event):
    """The agent finished its response: the config's response:complete hook (Claude Code Stop)."""

    last_message: str = ""
    continued: bool = field(default=False, metadata={"omit_empty": True})
    """The turn went on because a Stop hook blocked it (Claude Code's `stop_hook_active`)."""


@record("session_ended")
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionEnded(Event):
    reason: str = ""


@record("marker")
@dataclass(frozen=True, slots=True, kw_only=True)
class Marker(Event):
    """A named custom event; observers can be triggered by its name (`plan_progress_check`)."""

    name: str = ""
    data: dict[str, Any] = field(default_factory=dict)


def clip(text: str, limit: int = OUTPUT_LIMIT) -> str:
    """Keep the head and tail of a long text, saying how much was cut in between. (Text from
    outside goes through `onlooker.text.clipping.clip`, which keeps secrets from straddling a
    cut.)"""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}{clip_marker(len(text) - 2 * half)}{text[-half:]}"


def clip_marker(cut: int) -> str:
    """What stands in a clipped text for the `cut` characters left out."""
    return f"\n…[{cut} characters clipped]…\n"
