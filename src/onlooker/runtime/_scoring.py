"""Session scoring at the runtime's delivery points (specs/scoring.md): queue a score when a turn,
a subagent or a session ends (never judged in the hook: the worker runs it), hand the user the
waiting notices, and give a compacted session its scores' context.
"""

from __future__ import annotations

from pathlib import Path

from ..core.events import (
    Event,
    SessionEnded,
    SessionStarted,
    SubagentStopped,
    TurnEnded,
    UserPrompt,
)
from ..scoring import JOB_KIND, Scores, compaction_context, score_job, take_notice
from ..scoring.run import TURN_DELAY
from ..scoring.settings import ScoringSettings
from ..store import Store
from ._arrival import Arrival, subagent_session_id
from ._memory import WakeWorker

NOTICE_EVENTS = (UserPrompt,)
"""Events whose answer shows the user a waiting notice: a prompt's (Claude Code 2.1.328 shows a
SessionStart hook's `systemMessage` to nobody in a headless run; a prompt's it shows in both)."""


class ScoringSteps:
    """The scoring work of one runtime, over its store."""

    def __init__(self, store: Store, wake_worker: WakeWorker | None) -> None:
        self.store = store
        self.scores = Scores(store)
        self.wake_worker = wake_worker

    def score_later(
        self, arrival: Arrival, event: Event, settings: ScoringSettings, *, project: str,
        root: Path | None,
    ) -> None:  # fmt: skip
        """Queue the ended session's score (one queued job per session at a time: the turns that
        end while it waits are scored with it; the session's end makes the waiting one due)."""
        if not settings.active:
            return
        transcript = ""
        if isinstance(event, SubagentStopped):
            session_id, delay = subagent_session_id(arrival.session_id, event.agent_id), 0.0
            transcript = event.transcript_path  # the subagent's own: its prompt and answers
        elif isinstance(event, TurnEnded) and arrival.session_key == arrival.session_id:
            if settings.turn_interval == 0:
                return  # scored when it ends only
            session_id, delay = arrival.session_id, TURN_DELAY
        elif isinstance(event, SessionEnded):
            session_id, delay = arrival.session_id, 0.0
        else:
            return
        if self.store.jobs.unfinished(JOB_KIND, session_id):
            if delay == 0 and self.store.jobs.hasten(JOB_KIND, session_id):
                self._wake()  # the session ended: the waiting score is due now
            return
        payload = score_job(project, session_id, root, settings, transcript, notice_for(arrival))
        if isinstance(event, TurnEnded):
            payload["turn"] = True  # mid-session: due every `turn_interval` turns
        self.store.enqueue(JOB_KIND, payload, project=project, session_id=session_id, delay=delay)
        self._wake()

    def _wake(self) -> None:
        if self.wake_worker is not None:
            self.wake_worker(self.store.home)

    def notice(self, arrival: Arrival, event: Event, *, project: str) -> str:
        """The notice waiting for the user of this arrival's host and session, at events whose
        answer can show it ('' otherwise)."""
        if not isinstance(event, NOTICE_EVENTS):
            return ""
        return take_notice(self.scores, project, notice_for(arrival))

    def after_compaction(self, event: Event, *, project: str) -> str:
        """The scores' context for a session starting again after compaction ('' otherwise)."""
        if not isinstance(event, SessionStarted) or event.source != "compact":
            return ""
        return compaction_context(self.scores, project)


def notice_for(arrival: Arrival) -> str:
    """Whose notices an arrival's session gets: opencode's are its session's own; '' for Claude
    Code's, which are the project's (a headless session has ended by the time its score comes, so
    the next session shows it)."""
    return f"{arrival.host}:{arrival.session_id}" if arrival.host else ""
