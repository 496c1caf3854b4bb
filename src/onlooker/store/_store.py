"""The store: findings, session journals and snapshots in one data home, behind one class.

Every change is decided and applied under the index's write lock, appended to the acting session's
journal (the project's manual journal outside a session), and only then committed.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..core.assessment import Finding
from ..core.clock import Clock, SystemClock
from ..core.events import Event
from ..core.records import Record
from ..core.session import Session
from ..core.session_history import apply_history, history_kinds
from ..core.slices import Reducer
from ..errors import LifecycleError, UnknownFinding
from ..text.redact import redact, redact_record
from ._changing import Pending, catch_up, changing
from ._effects_index import EffectsIndex
from ._index import open_index
from ._jobs import JobQueue
from ._overview import Overview
from ._runs import ObserverRuns, RunStatus
from .changes import (
    EPISODE_REF,
    Change,
    FindingAcknowledged,
    FindingCreated,
    FindingExpired,
    FindingReopened,
    FindingResolved,
    FindingsCleared,
    FindingSeen,
    Observation,
    SummaryDelivered,
    content_hash,
)
from .home import INDEX_FILE, JOURNALS, data_home, home_origin, journal_path, safe_name, store_url
from .identity import display_name
from .journal import Journal
from .query import CLOSED, UNRESOLVED, FindingPage, FindingQuery

if TYPE_CHECKING:
    from ..llm.model import Model


@dataclass(frozen=True, slots=True)
class Created:
    """What `create` did with one finding: stored it anew, or counted one more occurrence."""

    observation: Observation
    new: bool


class Store:
    """One data home: its journals (the truth) and its index (`onlooker.db`)."""

    def __init__(
        self, home: str | Path | None = None, *, clock: Clock | None = None, url: str | None = None
    ) -> None:
        self.home = Path(home) if home is not None else data_home()
        self.clock: Clock = clock or SystemClock()
        self.url = store_url(self.home) if url is None else url
        """Where the index lives: '' for onlooker.db, else the team's PostgreSQL database."""
        self.index = open_index(self.home / INDEX_FILE, self.url)
        self.origin = home_origin(self.home) if self.shared else ""
        """In a shared index, what keys this data home's journals apart from other machines'."""
        self._journals: dict[tuple[str, str], Journal] = {}
        self.jobs = JobQueue(self.index, self.clock)
        """Work for the detached worker: enqueue, claim, complete, fail."""
        self.runs = ObserverRuns(self.index, self.clock)
        """Observer runs: status, usage and cost, and background reports to deliver."""
        self.overview = Overview(self.index)
        """Counts for reports: findings over time, per session; memory counts."""
        self.effects = EffectsIndex(self.index)
        """What side effects saved, and the compliance verifier's verdicts."""

    @property
    def shared(self) -> bool:
        """Whether the index is a PostgreSQL database that other data homes write too."""
        return self.index.dialect == "postgres"

    def close(self) -> None:
        self.index.close()

    def journal_key(self, path: Path) -> str:
        """What the index calls a journal of this data home: its path in the data home, behind
        the data home's origin in a shared index."""
        key = path.relative_to(self.home).as_posix()
        return f"{self.origin}:{key}" if self.origin else key

    def journal_at(self, key: str) -> Journal | None:
        """The journal of an index key, when it is one of this data home's."""
        origin, _, path = key.rpartition(":")
        return Journal(self.home / path, key) if origin == self.origin else None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def journal(self, project: str, session_id: str = "") -> Journal:
        """The journal of a session, or the project's manual journal when `session_id` is ''."""
        found = self._journals.get((project, session_id))
        if found is None:
            path = journal_path(self.home, project, session_id)
            found = Journal(path, self.journal_key(path))
            if len(self._journals) < 1024:
                self._journals[project, session_id] = found
        return found

    # -- findings: changes -----------------------------------------------------------------------

    def create(
        self, findings: Iterable[Finding], *, project: str, session_id: str = ""
    ) -> tuple[Created, ...]:
        """Store findings as open, or count one more occurrence of an equal unresolved one.
        Secrets in their text are redacted first."""
        findings = [redact_record(finding) for finding in findings]
        if not findings:
            return ()
        outcome: list[tuple[str, bool]] = []
        with self._changing(project, session_id) as pending:
            for finding in findings:
                finding = dataclasses.replace(
                    finding,
                    metadata=_plain(finding.metadata),
                    project=project,
                    session_id=finding.session_id or session_id,
                    status="open",
                    created_at=finding.created_at or pending.at,
                    acknowledged_at=None,
                    resolved_at=None,
                    resolution_note=None,
                )
                same = self.index.unresolved_duplicate(project, content_hash(finding))
                if same is not None:
                    pending.add(_seen(same, finding, session_id))
                    outcome.append((same, False))
                    continue
                if self.index.has(finding.id):  # the same Finding value stored twice
                    finding = dataclasses.replace(finding, id=os.urandom(16).hex())
                pending.add(FindingCreated(finding=finding))
                outcome.append((finding.id, True))
            stored = {o.id: o for o in self.get(tuple({i for i, _ in outcome}))}
        return tuple(Created(stored[i], new) for i, new in outcome)

    def acknowledge(self, finding_id: str, *, project: str, session_id: str = "") -> Observation:
        """Mark an open finding acknowledged (already acknowledged: unchanged)."""
        with self._changing(project, session_id) as pending:
            current = self._one(finding_id, project)
            if current.finding.status in CLOSED:
                raise LifecycleError(
                    f"observation {finding_id} is {current.finding.status}; only open ones can be "
                    "acknowledged"
                )
            if current.finding.status == "open":
                pending.add(FindingAcknowledged(finding_id=finding_id))
            return self._one(finding_id, project)

    def resolve(
        self, finding_id: str, note: str | None = None, *, project: str, session_id: str = ""
    ) -> Observation:
        """Mark a finding resolved with an optional note, secrets redacted (already resolved:
        unchanged)."""
        with self._changing(project, session_id) as pending:
            if self._one(finding_id, project).finding.status != "resolved":
                pending.add(
                    FindingResolved(finding_id=finding_id, note=redact(note) if note else note)
                )
            return self._one(finding_id, project)

    def expire(
        self, notes: Mapping[str, str], *, project: str, session_id: str = ""
    ) -> tuple[str, ...]:
        """Close unresolved findings whose session or episode ended before anyone acted on them
        (finding id -> what ended), in one write; the ids that expired."""
        with self._changing(project, session_id) as pending:
            current = self.get(tuple(notes), project)
            ids = tuple(o.id for o in current if o.finding.status in UNRESOLVED)
            for finding_id in ids:
                pending.add(FindingExpired(finding_id=finding_id, note=notes[finding_id]))
        return ids

    def reopen(self, finding_ids: Sequence[str], *, project: str, session_id: str = "") -> None:
        """Open expired findings again (their session was resumed), in one write."""
        with self._changing(project, session_id) as pending:
            for o in self.get(finding_ids, project):
                if o.finding.status == "expired":
                    pending.add(FindingReopened(finding_id=o.id))

    def clear_resolved(self, *, project: str, session_id: str = "") -> tuple[str, ...]:
        """Remove the project's closed (resolved or expired) findings from the index; return
        their ids."""
        with self._changing(project, session_id) as pending:
            ids = tuple(self.index.closed_ids(project))
            if ids:
                pending.add(FindingsCleared(project=project, finding_ids=ids))
        return ids

    # -- findings: reads -------------------------------------------------------------------------

    def query(self, query: FindingQuery) -> FindingPage:
        return self.index.query(query)

    def get(self, ids: Sequence[str], project: str | None = None) -> list[Observation]:
        """The findings with these ids, in the order asked (unknown ids are left out)."""
        found = {o.id: o for o in self.index.observations(ids, project)}
        return [found[i] for i in ids if i in found]

    def find_id(self, prefix: str, project: str | None = None) -> str:
        """The id equal to `prefix`, or the only one starting with it (4 characters at least)."""
        if self.get((prefix,), project):
            return prefix
        matches = self.index.ids_with_prefix(prefix, project) if len(prefix) >= 4 else []
        if len(matches) == 1:
            return matches[0]
        where = f" in project {display_name(project)!r}" if project is not None else ""
        kind = "matches several observations" if matches else "matches no observation"
        raise UnknownFinding(f"{prefix!r} {kind}{where}")

    def search(self, text: str, project: str | None = None, limit: int = 20) -> list[Observation]:
        """Full-text search over finding text (every word must appear)."""
        page = self.query(
            FindingQuery(project=project, text=text, sort_by="created_at", limit=limit)
        )
        return list(page.observations)

    def project_keys(self) -> list[str]:
        """Every project key the index holds findings, memories or jobs of."""
        return self.index.project_keys()

    def open_findings(self, project: str, observer: str) -> tuple[Finding, ...]:
        """An observer's unresolved findings in a project, most severe first."""
        query = FindingQuery(project=project, statuses=UNRESOLVED, observers=(observer,))
        return tuple(o.finding for o in self.query(query).observations)

    def findings_for(self, project: str) -> Callable[[str], tuple[Finding, ...]]:
        """What `Engine(findings=...)` takes: observer name -> its unresolved findings here."""
        return partial(self.open_findings, project)

    # -- sessions --------------------------------------------------------------------------------

    def append(self, records: Sequence[Record], *, project: str, session_id: str) -> None:
        """Journal events, assessments or failures of a session, in one write."""
        self.journal(project, session_id).append(records)

    def save_session(self, session: Session, *, project: str) -> None:
        """Keep the session's snapshot, so the next process resumes it without replaying it."""
        if not session.id:
            raise ValueError("a session needs an id to be saved")
        journal = self.journal(project, session.id)
        # encoded before taking the write lock, so other sessions' writes do not wait on it
        snapshot = json.dumps(session.snapshot(), ensure_ascii=False, separators=(",", ":"))
        with self.index.transaction():
            catch_up(self.index, journal)
            self.index.save_session(
                session.id, journal.key, session.seq, snapshot, journal.size(), self.clock.now()
            )

    def load_session(
        self,
        session_id: str,
        *,
        windows: Mapping[str, int] | None = None,
        reducers: Mapping[type[Event], tuple[tuple[type[Any], Reducer], ...]] | None = None,
    ) -> Session | None:
        """The saved session, plus any journaled events newer than its snapshot; None if unknown.

        A session journaled but never saved (its process died before the first checkpoint) is
        rebuilt from its journal's events."""
        saved = self.index.load_session(session_id)
        if saved is None:
            key = self._unsaved_journal(session_id)
            if key is None:
                return None
            session, offset = Session(session_id, windows=windows, reducers=reducers), 0
        else:
            key, _seq, snapshot, offset = saved
            session = Session.restore(snapshot, windows=windows, reducers=reducers)
        journal = self.journal_at(key)
        if journal is not None and journal.size() > offset:  # its assessments too, not only events
            apply_history(session, journal.read(offset, kinds=history_kinds()).records)
        return session if saved is not None or session.seq else None

    def _unsaved_journal(self, session_id: str) -> str | None:
        """The key of the one journal a session id has (in any project), if there is one."""
        found = list(self.home.glob(f"{JOURNALS}/*/{safe_name(session_id)}.jsonl"))
        return self.journal_key(found[0]) if len(found) == 1 else None

    def record_changes(
        self, changes: Sequence[Change], *, project: str, session_id: str = ""
    ) -> None:
        """Journal changes of other features (side effects saved, compliance verdicts) in the
        session's journal and apply them to the index, numbered like the findings' own."""
        with self._changing(project, session_id) as pending:
            for change in changes:
                pending.add(change)

    def mark_delivered(self, session_id: str, digest: str, *, project: str) -> bool:
        """Remember that a text with `digest` reached the session; False if it was the last one
        (the digest '' stands for nothing delivered)."""
        if (self.index.delivered_digest(session_id) or "") == digest:
            return False
        with self._changing(project, session_id) as pending:
            if (self.index.delivered_digest(session_id) or "") == digest:
                return False
            pending.add(SummaryDelivered(session_id=session_id, digest=digest))
        return True

    # -- jobs and observer runs ------------------------------------------------------------------

    def enqueue(
        self,
        kind: str,
        payload: dict[str, Any],
        *,
        project: str,
        session_id: str = "",
        delay: float = 0.0,
    ) -> int:
        """Queue a job for the worker (`daemon.worker.ensure_worker` starts one), to run no
        sooner than `delay` seconds from now; its id."""
        return self.jobs.enqueue(kind, payload, project=project, session_id=session_id, delay=delay)

    def record_observer_run(
        self,
        observer: str,
        *,
        session_id: str,
        project: str,
        status: RunStatus,
        error: str | None = None,
        duration: float = 0.0,
        model: str = "",
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost_usd: float | None = None,
        report: str = "",
    ) -> int:
        """Record one observer run (ok | timeout | error | skipped) with its usage and cost; a
        non-empty `report` is delivered to the session at its next delivery point."""
        return self.runs.record(
            {
                "observer": observer, "session_id": session_id, "project": project,
                "status": status, "error": error, "duration": float(duration), "model": model,
                "input_tokens": int(input_tokens), "output_tokens": int(output_tokens),
                "cost_usd": cost_usd, "report": report,
            }
        )  # fmt: skip

    # -- internals -------------------------------------------------------------------------------

    def _changing(self, project: str, session_id: str) -> AbstractContextManager[Pending]:
        """One write transaction over the session's journal (see `changing`)."""
        return changing(self.index, self.journal(project, session_id), self.clock.now)

    def _one(self, finding_id: str, project: str) -> Observation:
        found = self.get((finding_id,), project)
        if not found:
            raise UnknownFinding(f"no observation {finding_id!r} in project {project!r}")
        return found[0]


class JobContext(Protocol):
    """What a job handler may use (the worker's WorkerContext)."""

    @property
    def store(self) -> Store: ...

    @property
    def clock(self) -> Clock: ...

    def model(self, spec: str) -> Model:
        """The model for a model string (`openai:gpt-4o-mini`, `local:smollm2`), built once."""
        ...


def _seen(finding_id: str, finding: Finding, session_id: str) -> FindingSeen:
    """One more occurrence; an episode's finding also takes the new severity and text."""
    if not (finding.source_ref or "").startswith(EPISODE_REF):
        return FindingSeen(finding_id=finding_id, session_id=session_id)
    return FindingSeen(
        finding_id=finding_id, session_id=session_id, severity=finding.severity,
        content=finding.content, evidence=finding.evidence, metadata=finding.metadata,
    )  # fmt: skip


def _plain(metadata: dict[str, Any]) -> dict[str, Any]:
    """Metadata as JSON keeps it: values JSON cannot hold become their text."""
    plain: dict[str, Any] = json.loads(json.dumps(metadata, default=str))
    return plain
