"""Memory as stored (specs/memory.md): pending events waiting for extraction, memories, and the
journal changes that create, forget and deliver memories, so `onlooker reindex` restores them.

Times are kept as INTEGER milliseconds since the epoch, UTC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..core.events import EPOCH
from ..core.records import encode, record
from .changes import Change


def millis(when: datetime) -> int:
    """A time as the memory tables store it: milliseconds since the epoch."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


def from_millis(value: int) -> datetime:
    return datetime.fromtimestamp(value / 1000, UTC)


@dataclass(frozen=True, slots=True)
class PendingEvent:
    """One tool event compressed by rule, waiting for the batched extraction of its session."""

    id: int
    session_id: str
    project: str
    tool_name: str
    compressed: str
    """The tool call compressed to one line, e.g. `Read /src/auth.ts (245 lines)`."""
    files: tuple[str, ...] = ()
    """Paths the event touched: memories drawn from it can be searched by file."""
    timestamp: datetime = EPOCH


@dataclass(frozen=True, slots=True)
class Memory:
    """One thing worth remembering across sessions: a title and its content."""

    id: int
    title: str
    content: str
    project: str
    session_id: str = ""
    timestamp: datetime = EPOCH
    """When what it remembers happened (the last event of its batch)."""
    created_at: datetime = EPOCH
    files: tuple[str, ...] = ()

    def compact(self) -> dict[str, Any]:
        """What a search returns: id, title, project, timestamp."""
        return {
            "id": self.id,
            "title": self.title,
            "project": self.project,
            "timestamp": encode(self.timestamp),
        }

    def to_dict(self) -> dict[str, Any]:
        """Every field, for `get_observations` and `--json`."""
        return {
            **self.compact(),
            "content": self.content,
            "session_id": self.session_id,
            "created_at": encode(self.created_at),
            "files": list(self.files),
        }


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """Which memories a search or a digest may return; None or () means no limit."""

    projects: tuple[str, ...] = ()
    after: datetime | None = None
    """Only memories whose timestamp is at or after this time."""
    before: datetime | None = None
    """Only memories whose timestamp is before this time."""
    files: tuple[str, ...] = ()
    """Only memories naming one of these files (a path, or the end of one: `auth.py`)."""
    not_session: str = ""
    """Leave out the memories this session made (a resumed session is not told its own)."""
    opted_in: bool = False
    """Leave out the memories of projects whose memory is off (`memory_opt_outs`)."""


@record("memory_created")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryCreated(Change):
    """A memory extracted from a session's events."""

    memory: Memory


@record("memories_forgotten")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemoriesForgotten(Change):
    """Memories removed on request (`onlooker memory forget`): a tombstone for each id."""

    project: str = ""
    memory_ids: tuple[int, ...] = ()


@record("memories_superseded")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemoriesSuperseded(Change):
    """Memories a later statement of the same facts replaced (a rule digest's later batch, a
    command's newer state): they leave search and injection; the journal keeps them."""

    project: str = ""
    session_id: str = ""
    memory_ids: tuple[int, ...] = ()


@record("memory_edited")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryEdited(Change):
    """A memory's title and content as a person corrected them (`onlooker memory edit`)."""

    project: str = ""
    memory_id: int = 0
    title: str = ""
    content: str = ""


@record("memory_pinned")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryPinned(Change):
    """A memory pinned (first in every digest, whatever its age) or unpinned."""

    project: str = ""
    memory_id: int = 0
    pinned: bool = True


@record("memories_injected")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemoriesInjected(Change):
    """Memories added to a session's context at its start; `reset` after the context was cleared."""

    session_id: str
    memory_ids: tuple[int, ...] = ()
    reset: bool = False


@record("memories_dropped")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemoriesDropped(Change):
    """Memories a model gave that the quality gate refused, counted by reason."""

    project: str = ""
    session_id: str = ""
    reasons: dict[str, int] = field(default_factory=dict)


@record("memory_model_used")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryModelUsed(Change):
    """One extraction batch's model call (tokens and cost), or one a token budget refused."""

    project: str = ""
    session_id: str = ""
    model: str = ""
    day: str = ""
    """The UTC day of the call, YYYY-MM-DD: the per-day budget counts by it."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    """Estimated, as the provider reports or onlooker.llm.estimate_cost prices it; None: unknown."""
    skipped: str = ""
    """Why no call was made ('' when it was): the budget that refused it, `session` or `day`."""


@record("memory_opt_out")
@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryOptOut(Change):
    """A project's memory turned off (`.onlooker/no-memory`, `memory.enabled: false`) or on
    again, as one of its sessions saw it: other projects' digests leave out its memories."""

    project: str
    off: bool = True
