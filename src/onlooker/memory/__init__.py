"""Memory across sessions (specs/memory.md): capture tool events by rule, extract memories in
batches at session end, search them (text, vectors, both), and inject recent ones at session start.
"""

from ..errors import ExtractionFailed, MemorySettingsError, SearchError
from ..store.memory_records import Memory, MemoryFilter, PendingEvent
from ._memories import Extracted, Memories
from .capture import capture
from .compress import SKIPPED_TOOLS, Compressed, compress
from .extract import JOB_KIND, ExtractionReport, extract_session
from .inject import render_digest, session_start_digest
from .search import MODES, VectorSide, fuse, get_memories, search
from .settings import OPT_OUT_MARKER, MemorySettings, memory_on

__all__ = [
    "JOB_KIND",
    "MODES",
    "OPT_OUT_MARKER",
    "SKIPPED_TOOLS",
    "Compressed",
    "Extracted",
    "ExtractionFailed",
    "ExtractionReport",
    "Memories",
    "Memory",
    "MemoryFilter",
    "MemorySettings",
    "MemorySettingsError",
    "PendingEvent",
    "SearchError",
    "VectorSide",
    "capture",
    "compress",
    "extract_session",
    "fuse",
    "get_memories",
    "memory_on",
    "render_digest",
    "search",
    "session_start_digest",
]
