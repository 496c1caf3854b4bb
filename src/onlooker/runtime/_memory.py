"""Memory at the runtime's delivery points: capture each tool call, queue extraction at a turn's
or a session's end (and for sessions that ended unannounced), and the digest at a session's start.
Whether memory is on is decided at every arrival, so an opt-out made mid-session takes effect at
the next hook, and is recorded for the digests of other projects (specs/memory.md).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from ..core.events import SessionStarted, ToolCall
from ..memory import Memories
from ..memory.capture import capture
from ..memory.extract import ABANDONED_AFTER, JOB_KIND, extraction_due, extraction_job
from ..memory.inject import session_start_digest
from ..memory.settings import OPT_OUT_MARKER, MemorySettings
from ..store import Store

WakeWorker = Callable[[Path], None]
"""Makes sure a worker drains the data home's job queue (the daemon's `ensure_worker`)."""


class MemorySteps:
    """The memory work of one runtime, over its store."""

    def __init__(self, store: Store, wake_worker: WakeWorker | None) -> None:
        self.store = store
        self.memories = Memories(store)
        self.wake_worker = wake_worker
        self._on: dict[str, bool] = {}
        """Per project: whether memory was on when last recorded in the store."""

    @staticmethod
    def turned_on(settings: MemorySettings, root: Path, cwd: str) -> bool:
        """Memory is on for the project now: enabled, and no `.onlooker/no-memory` at its root
        (one stat, so the marker counts from the next hook on)."""
        return settings.enabled and not (cwd and (root / OPT_OUT_MARKER).exists())

    def note_opt_out(self, on: bool, *, project: str, session_id: str) -> None:
        """Record a project's memory going off or on again (once per change in this process)."""
        if self._on.get(project) == on:
            return
        self.memories.set_opted_out(project, not on, session_id=session_id)
        self._on[project] = on

    def capture(self, call: ToolCall, *, project: str, session_id: str, root: str = "") -> None:
        capture(self.memories, call, project=project, session_id=session_id, root=root)

    def extract_later(
        self, settings: MemorySettings, *, project: str, session_id: str, final: bool
    ) -> None:
        """Queue the session's extraction for the worker, when there is enough to do."""
        if not extraction_due(self.memories, project=project, session_id=session_id, final=final):
            return
        payload = extraction_job(
            project, session_id, final=final, model=settings.model, settings=settings
        )
        self.store.enqueue(JOB_KIND, payload, project=project, session_id=session_id)
        self._wake()

    def extract_abandoned(self, settings: MemorySettings, *, project: str, session_id: str) -> None:
        """Queue the final extraction of the project's sessions that ended without a SessionEnd."""
        idle = self.memories.idle_sessions(project, ABANDONED_AFTER)
        others = [
            other
            for other in idle
            if other != session_id and not self.store.jobs.unfinished(JOB_KIND, other)
        ]
        for other in others:
            payload = extraction_job(
                project, other, final=True, model=settings.model, settings=settings
            )
            self.store.enqueue(JOB_KIND, payload, project=project, session_id=other)
        if others:
            self._wake()

    def digest(
        self,
        started: SessionStarted,
        settings: MemorySettings,
        *,
        project: str,
        session_id: str,
        now: datetime,
    ) -> str:
        """The recent memories to start a session with ('' for none)."""
        return session_start_digest(
            self.memories, project=project, session_id=session_id, source=started.source,
            settings=settings, now=now,
        )  # fmt: skip

    def _wake(self) -> None:
        if self.wake_worker is not None:
            self.wake_worker(self.store.home)
