"""The `score.session` job with Claude Code's transcripts read in (specs/scoring.md): a subagent's
journal holds its start and its tool calls only; its instruction and answers are in its own
transcript, which SubagentStop names (`agent_transcript_path`), so the worker reads it here, at
the host's edge, and scoring judges the subagent from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...core.events import Event
from ...errors import TranscriptError
from ...scoring.run import handle as score
from ...store._jobs import Job
from ...store._store import JobContext
from .transcript import iter_claude_code


def handle(job: Job, ctx: JobContext) -> None:
    """Worker handler for `score.session`."""
    score(job, ctx, read_transcript=transcript_events)


def transcript_events(path: str, session_id: str) -> Sequence[Event]:
    """The events of a Claude Code transcript, as `session_id`'s (none when it cannot be read: the
    session is then judged from its journal alone)."""
    try:
        with Path(path).open("rb") as lines:
            return list(iter_claude_code(lines, session_id=session_id))
    except (OSError, TranscriptError):
        return ()
