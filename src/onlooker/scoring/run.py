"""Scoring one session (specs/scoring.md): the job the worker runs when a turn or a session ends
(`score.session`), and the same work on demand. The automatic run keeps the first-run guard (a
session onlooker did not see begin is not scored) and the debounce (a session is scored again only
when new messages arrived since its last score); on demand, any session is scored.

After a score: the cost is recorded as an observer run, applied improvements get their delta,
repeated weaknesses become pending improvements (applied at once when auto-update is on), and the
user is told (a notice for the next hook of the project).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.events import Event, TurnEnded
from ..llm.model import Model
from ..store import Store
from ..store._jobs import Job
from ..store._store import JobContext
from ..store.score_records import Improvement, SessionScore
from ._files import agent_prompt_text, instructions_text
from ._rows import label
from ._scores import FAILURE_OBSERVER, STEERING, Scores
from .aggregate import percent, score_emoji
from .improve import apply, auto_applies, close_deltas, propose
from .judge import Verdict, judge
from .material import facts, scorer_input, session_events, with_transcript
from .settings import DETAIL_LEVELS, ScoringSettings

JOB_KIND = "score.session"
OBSERVER = FAILURE_OBSERVER
"""The observer name scoring runs are recorded under (cost, status, model)."""
TURN_DELAY = 30.0
"""Seconds a score waits after a turn ends: the turns that follow within it are scored together."""
LOW_SCORE = 0.4
NOTICE = "notice"


@dataclass(frozen=True, slots=True)
class Scored:
    """What scoring a session did ('skipped' says why nothing was judged)."""

    score: SessionScore | None = None
    verdict: Verdict | None = None
    proposed: tuple[Improvement, ...] = ()
    applied: tuple[Improvement, ...] = ()
    skipped: str = ""
    notices: tuple[str, ...] = ()
    failed: str = ""
    """Why the judge gave no usable answer: nothing was scored (an earlier score stays)."""


def score_job(
    project: str, session_id: str, root: Path | None, settings: ScoringSettings,
    transcript: str = "", notice_for: str = "",
) -> dict[str, Any]:  # fmt: skip
    """The payload of a `score.session` job; `transcript`: the session's own transcript (a
    subagent's, which holds what its journal does not: its instruction and its answers)."""
    payload = {
        "project": project,
        "session_id": session_id,
        "root": str(root) if root is not None else "",
        "settings": settings.to_dict(),
    }
    if transcript:
        payload["transcript"] = transcript
    if notice_for:
        payload["notice_for"] = notice_for
        payload["host"] = notice_for.partition(":")[0]
    return payload


def settings_from(data: dict[str, Any]) -> ScoringSettings:
    known = {f.name for f in dataclasses.fields(ScoringSettings)}
    values = {k: v for k, v in data.items() if k in known}
    for name in ("sections_managed", "agents_observed"):
        if name in values:
            values[name] = tuple(values[name])
    if values.get("detail_level") not in DETAIL_LEVELS:
        values.pop("detail_level", None)
    return ScoringSettings(**values)


TranscriptReader = Callable[[str, str], Sequence[Event]]
"""(transcript path, session id) -> the transcript's events, as that session's."""


def handle(job: Job, ctx: JobContext, read_transcript: TranscriptReader | None = None) -> None:
    """Worker handler for `score.session`: score the session if it is due (the host's edge
    passes `read_transcript` for a job that names the session's own transcript)."""
    payload = job.payload
    settings = settings_from(dict(payload.get("settings") or {}))
    if not settings.active:
        return
    root = Path(payload["root"]) if payload.get("root") else None
    session_id = str(payload["session_id"])
    transcript: Sequence[Event] = ()
    if payload.get("transcript") and read_transcript is not None:
        transcript = read_transcript(str(payload["transcript"]), session_id)
    project = str(payload["project"])
    notice_for = str(payload.get("notice_for") or "")
    done = score_session(
        ctx.store, ctx.model(settings.model), project=project,
        session_id=session_id, root=root, settings=settings, automatic=True,
        transcript=transcript, notice_for=notice_for, host=str(payload.get("host") or ""),
        every_turns=settings.turn_interval if payload.get("turn") else 0,
    )  # fmt: skip
    if done.skipped and payload.get("asked"):  # someone asked for it: say why not
        line = f"onlooker: session {session_id} was not scored: {done.skipped}"
        add_notice(Scores(ctx.store), project, [line], notice_for)


def score_session(
    store: Store,
    model: Model,
    *,
    project: str,
    session_id: str,
    root: Path | None,
    settings: ScoringSettings,
    automatic: bool = False,
    events: Sequence[Event] | None = None,
    transcript: Sequence[Event] = (),
    notice_for: str = "",
    host: str = "",
    every_turns: int = 0,
) -> Scored:
    """Judge a session and keep what follows from its score. `events` stand in for the journal
    (a past session read from its transcript); `transcript` adds what the session's own
    transcript holds beyond its journal (a subagent's instruction and answers)."""
    scores = Scores(store)
    events = list(events) if events is not None else session_events(store, project, session_id)
    events = with_transcript(events, transcript, session_id)
    about = facts(session_id, events)
    if not events:
        return Scored(skipped=f"no events recorded for session {session_id}")
    if automatic:
        if not about.seen_start:
            return Scored(skipped="started before onlooker observed it (first-run guard)")
        if about.own_commands_only:
            return Scored(skipped="the session only ran onlooker's own commands")
        if not settings.observes(about.agent_name):
            return Scored(skipped=f"agent {about.agent_name} is not observed")
        earlier = scores.of(project, session_id)
        if about.last_message_seq == 0 or (earlier and earlier.seen_seq >= about.last_message_seq):
            return Scored(skipped="no new messages since the last score")
        since = earlier.seen_seq if earlier else 0
        turns = sum(1 for e in events if isinstance(e, TurnEnded) and e.seq > since)
        if every_turns and turns < every_turns:
            return Scored(skipped=f"{turns} of {every_turns} turns since the last score")
        if settings.notify_on_evaluation:
            who = f" ({about.agent_name})" if about.agent_name else ""
            add_notice(scores, project, [f"onlooker: evaluating session {session_id}{who}…"],
                       notice_for)  # fmt: skip
    parent = (
        session_events(store, project, about.parent_session_id) if about.parent_session_id else []
    )
    given = scorer_input(
        session_id, events, parent_events=parent,
        agents_md=instructions_text(root, settings) if root is not None else None,
        agent_prompt=(
            agent_prompt_text(root, about.agent_name, host) if root is not None else None
        ),
        agent_name=about.agent_name, guidance=scores.settings(project).get(STEERING, ""),
    )  # fmt: skip
    now = store.clock.now()
    verdict = asyncio.run(
        judge(
            model,
            given,
            detail_level=settings.detail_level,
            retries=settings.retries,
            timeout=settings.timeout,
            now_ms=int(now.timestamp() * 1000),
        )
    )
    _record_run(store, verdict, project, session_id)
    if verdict.error:
        # A failed or unreadable answer is a failed scoring, never a score: the run keeps the
        # reason (history and status show it) and an earlier real score stays as it was.
        kept = scores.of(project, session_id)
        notice = _failure_notice(session_id, about.agent_name, verdict.error, kept)
        if automatic:
            add_notice(scores, project, [notice], notice_for)
        return Scored(verdict=verdict, failed=verdict.error, notices=(notice,))
    score = SessionScore(
        card=verdict.card, project=project, agent_name=about.agent_name,
        agent_type=about.agent_type, parent_session_id=about.parent_session_id,
        title=about.title, seen_seq=about.last_seq, model=verdict.model, host=host,
    )  # fmt: skip
    scores.record(score, max_history=settings.max_history)
    close_deltas(scores, score)
    proposed = propose(scores, project, settings, now, root=root)
    applied = []
    toggles = scores.settings(project)
    for improvement in proposed:
        if root is not None and auto_applies(improvement, settings, toggles):
            applied.append(apply(scores, improvement, root=root, settings=settings, now=now))
    notices = _notices(score, proposed, [a.improvement for a in applied])
    if notices and automatic:
        add_notice(scores, project, notices, notice_for)
    return Scored(
        score, verdict, tuple(proposed), tuple(a.improvement for a in applied),
        notices=tuple(notices),
    )  # fmt: skip


def add_notice(scores: Scores, project: str, lines: Sequence[str], to: str = "") -> None:
    """Keep lines for the user, shown at the next hook that can show them: of the session `to`
    names (`opencode:<session>`), or with '' of the project's next Claude Code prompt."""
    key = _notice_key(to)
    waiting = scores.settings(project).get(key, "")
    scores.set(project, key, "\n".join(p for p in (waiting, *lines) if p))


def take_notice(scores: Scores, project: str, to: str = "") -> str:
    """The notice waiting for `to` ('' for none), once."""
    key = _notice_key(to)
    waiting = scores.settings(project).get(key, "")
    if waiting:
        scores.set(project, key, "")
    return waiting


def _notice_key(to: str) -> str:
    return f"{NOTICE}@{to}" if to else NOTICE


def _failure_notice(session_id: str, agent_name: str, error: str, kept: SessionScore | None) -> str:
    who = f" ({agent_name})" if agent_name else ""
    after = f"; its score stays {percent(kept.score)}" if kept is not None else "; it has no score"
    return f"onlooker: scoring session {session_id}{who} failed: {error}{after}"


def _notices(
    score: SessionScore, proposed: Sequence[Improvement], applied: Sequence[Improvement]
) -> list[str]:
    who = f" ({score.agent_name})" if score.agent_name else ""
    lines = []
    if score.score < LOW_SCORE:
        lines.append(f"onlooker: ⚠ low adherence score {percent(score.score)}{who}")
    else:
        lines.append(f"onlooker: {score_emoji(score.score)} adherence {percent(score.score)}{who}")
    done = {i.id for i in applied}
    for improvement in proposed:
        if improvement.id in done or improvement.status != "pending":
            continue
        lines.append(
            f"Improvement suggestion available for weakness: {improvement.pattern}. "
            "`onlooker observer suggest` shows it (/onlooker:suggest, /observer suggest)."
        )
    for improvement in applied:
        lines.append(f"{label(improvement)} updated (weakness: {improvement.pattern}).")
    return lines


def _record_run(store: Store, verdict: Verdict, project: str, session_id: str) -> None:
    from ..reviewers._run import estimated_cost

    store.record_observer_run(
        OBSERVER, session_id=session_id, project=project,
        status="error" if verdict.error else "ok", error=verdict.error or None,
        duration=verdict.duration, model=verdict.model,
        input_tokens=verdict.usage.input_tokens, output_tokens=verdict.usage.output_tokens,
        cost_usd=estimated_cost(verdict.model, verdict.usage),
    )  # fmt: skip
