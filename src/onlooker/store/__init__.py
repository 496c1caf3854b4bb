"""The store: per-session JSONL journals (the truth) and a SQLite index rebuilt from them.

`Store` owns both; `ObservationsTool` is the observations tool over a store; `reindex`
rebuilds the index; `next_turn_observations` is the summary injected at the next turn.
"""

from ..errors import LifecycleError, StoreError, UnknownFinding
from ..runtime.next_turn import (
    format_observations_summary,
    next_turn_observations,
    observations_injection,
    open_observations_text,
)
from ._index import Index
from ._reindex import ReindexReport, reindex, remove_index
from ._store import Created, Store
from ._trajectory_findings import trajectory_findings
from .changes import (
    Change,
    FindingAcknowledged,
    FindingCreated,
    FindingResolved,
    FindingsCleared,
    FindingSeen,
    Observation,
    SummaryDelivered,
    content_hash,
    normalized,
)
from .home import data_home, journal_path, project_for
from .journal import Journal, JournalRead, SkippedLine
from .query import STATUSES, UNRESOLVED, FindingPage, FindingQuery
from .tool import ObservationsTool

__all__ = [
    "STATUSES",
    "UNRESOLVED",
    "Change",
    "Created",
    "FindingAcknowledged",
    "FindingCreated",
    "FindingPage",
    "FindingQuery",
    "FindingResolved",
    "FindingSeen",
    "FindingsCleared",
    "Index",
    "Journal",
    "JournalRead",
    "LifecycleError",
    "Observation",
    "ObservationsTool",
    "ReindexReport",
    "SkippedLine",
    "Store",
    "StoreError",
    "SummaryDelivered",
    "UnknownFinding",
    "content_hash",
    "data_home",
    "format_observations_summary",
    "journal_path",
    "next_turn_observations",
    "normalized",
    "observations_injection",
    "open_observations_text",
    "project_for",
    "reindex",
    "remove_index",
    "trajectory_findings",
]
