"""Finding lifecycle changes as journal records, and the stored form of a finding (Observation).

A change carries `serial`, a store-wide number given under the index's write lock: replaying every
journal's changes in serial order rebuilds the index exactly (`onlooker reindex`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..core.assessment import Finding
from ..core.events import EPOCH
from ..core.message import SHORT_ID
from ..core.records import Record, encode, record

_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True, kw_only=True)
class Change(Record):
    """Base of every lifecycle change."""

    serial: int = 0
    """Store-wide order of changes (ties only after a writer died between journal and index)."""
    at: datetime = EPOCH
    """When the change was made, in UTC."""


@record("finding_created")
@dataclass(frozen=True, slots=True, kw_only=True)
class FindingCreated(Change):
    """A new finding, open, with its project and session."""

    finding: Finding


@record("finding_seen")
@dataclass(frozen=True, slots=True, kw_only=True)
class FindingSeen(Change):
    """An open finding was reported again: one more occurrence. An episode's finding (a
    trajectory pattern that goes on) also takes the new report's text and severity."""

    finding_id: str
    session_id: str = ""
    severity: str | None = None
    content: str | None = None
    evidence: str | None = None
    metadata: dict[str, Any] | None = None


@record("finding_acknowledged")
@dataclass(frozen=True, slots=True, kw_only=True)
class FindingAcknowledged(Change):
    finding_id: str


@record("finding_resolved")
@dataclass(frozen=True, slots=True, kw_only=True)
class FindingResolved(Change):
    finding_id: str
    note: str | None = None


@record("finding_expired")
@dataclass(frozen=True, slots=True, kw_only=True)
class FindingExpired(Change):
    """An open or acknowledged finding closed because its session or episode ended before
    anyone acted on it; `note` says what ended."""

    finding_id: str
    note: str


@record("finding_reopened")
@dataclass(frozen=True, slots=True, kw_only=True)
class FindingReopened(Change):
    """An expired finding open again: the session it expired with was resumed."""

    finding_id: str


@record("findings_cleared")
@dataclass(frozen=True, slots=True, kw_only=True)
class FindingsCleared(Change):
    """Closed (resolved or expired) findings removed from the index (`clear_resolved`), named
    one by one."""

    project: str
    finding_ids: tuple[str, ...] = ()


@record("summary_delivered")
@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryDelivered(Change):
    """The open-observations summary was injected into a session; `digest` names its text."""

    session_id: str
    digest: str


def normalized(content: str) -> str:
    """Content as compared for deduplication: case-folded, numbers as '#', spaces collapsed."""
    return _SPACE.sub(" ", _DIGITS.sub("#", content.casefold())).strip().rstrip(".!")


EPISODE_REF = "episode "
"""source_ref prefix of a trajectory finding: `episode <session id>/<episode key>`."""


def episode_ref(session_id: str, episode: str) -> str:
    """The source_ref that makes a session's episode one finding."""
    return f"{EPISODE_REF}{session_id}/{episode}"


def content_hash(finding: Finding) -> str:
    """What makes two findings the same: observer, source_ref and normalized content; for an
    episode's finding, observer and source_ref only (its text changes as the episode goes on)."""
    ref = finding.source_ref or ""
    text = "" if ref.startswith(EPISODE_REF) else normalized(finding.content)
    key = "\x00".join((finding.observer, ref, text))
    return hashlib.blake2b(key.encode(), digest_size=16).hexdigest()


def short_id(finding_id: str) -> str:
    """The id as shown: its first SHORT_ID characters (a prefix `find_id` accepts)."""
    return finding_id[:SHORT_ID]


@dataclass(frozen=True, slots=True)
class Observation:
    """A stored finding with how often it was reported: what the observations tool returns."""

    finding: Finding
    occurrences: int = 1
    last_seen_at: datetime | None = None

    @property
    def id(self) -> str:
        return self.finding.id

    def to_dict(self) -> dict[str, Any]:
        """The observations tool's fields first (specs/store.md), then onlooker's own."""
        f = self.finding
        return {
            "id": f.id,
            "observer": f.observer,
            "content": f.content,
            "severity": f.severity,
            "status": f.status,
            "created_at": encode(f.created_at),
            "acknowledged_at": encode(f.acknowledged_at),
            "resolved_at": encode(f.resolved_at),
            "metadata": f.metadata,
            "source_type": f.source_type,
            "source_ref": f.source_ref,
            "category": f.category,
            "evidence": f.evidence,
            "resolution_note": f.resolution_note,
            "occurrences": self.occurrences,
            "last_seen_at": encode(self.last_seen_at),
            "session_id": f.session_id,
            "project": f.project,
        }
