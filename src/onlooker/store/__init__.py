"""The store: per-session JSONL journals (the truth) and a SQLite index rebuilt from them.

`Store` owns both; `ObservationsTool` is the observations tool over a store (create_batch, list,
get, acknowledge, resolve, clear_resolved). Rebuilding the index is `onlooker.runtime.reindex`.
"""

from ..errors import LifecycleError, StoreError, UnknownFinding
from ._index import Index
from ._store import Created, JobContext, Store
from ._trajectory_findings import kept_findings, trajectory_findings
from .changes import (
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
    normalized,
    short_id,
)
from .effect_records import VERDICTS, ComplianceVerdict, SideEffectSaved, VerdictKind
from .home import data_home, journal_path, project_for
from .journal import Journal, JournalRead, SkippedLine
from .query import CLOSED, STATUSES, UNRESOLVED, FindingPage, FindingQuery
from .tool import ObservationsTool

__all__ = [
    "CLOSED",
    "STATUSES",
    "UNRESOLVED",
    "VERDICTS",
    "Change",
    "ComplianceVerdict",
    "Created",
    "FindingAcknowledged",
    "FindingCreated",
    "FindingExpired",
    "FindingPage",
    "FindingQuery",
    "FindingReopened",
    "FindingResolved",
    "FindingSeen",
    "FindingsCleared",
    "Index",
    "JobContext",
    "Journal",
    "JournalRead",
    "LifecycleError",
    "Observation",
    "ObservationsTool",
    "SideEffectSaved",
    "SkippedLine",
    "Store",
    "StoreError",
    "SummaryDelivered",
    "UnknownFinding",
    "VerdictKind",
    "content_hash",
    "data_home",
    "journal_path",
    "kept_findings",
    "normalized",
    "project_for",
    "short_id",
    "trajectory_findings",
]
