"""The Runtime: the one place where a host's event becomes recorded, observed, delivered feedback.

Every host (the Claude Code hook service, the SDK adapters, plain loops, opencode, Amplifier)
translates its own input into an `Arrival` and the Runtime's `Delivery` back into its own output.
"""

from ._arrival import Arrival, Delivery, subagent_session_id
from ._reindex import ReindexReport, reindex, remove_index
from ._runtime import CHECKPOINTS, SNAPSHOT_EVERY, WARM_SESSIONS, EngineFor, Runtime

__all__ = [
    "CHECKPOINTS",
    "SNAPSHOT_EVERY",
    "WARM_SESSIONS",
    "Arrival",
    "Delivery",
    "EngineFor",
    "ReindexReport",
    "Runtime",
    "reindex",
    "remove_index",
    "subagent_session_id",
]
