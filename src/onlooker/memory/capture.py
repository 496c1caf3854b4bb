"""Capture on the hook path: a tool call compressed by rule and queued as a pending event.

No model runs here and the work is O(1): one compressed line, one insert.
"""

from __future__ import annotations

from ..core.events import ToolCall
from ._memories import Memories
from .compress import compress


def capture(
    memories: Memories, call: ToolCall, *, project: str, session_id: str, root: str = ""
) -> int | None:
    """Queue `call` for its session's extraction; the pending event's id, None if skipped. Paths
    under the project's `root` are written relative to it."""
    compressed = compress(call, root)
    if compressed is None:
        return None
    return memories.add_pending(
        session_id=session_id,
        project=project,
        tool_name=compressed.tool_name,
        compressed=compressed.line,
        files=compressed.files,
        at=call.at,
    )
