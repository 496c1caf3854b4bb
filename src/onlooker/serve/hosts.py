"""Which host ran a session: the host adapter its journal's `session_started` names
(specs/serve.md, Look). Journals written before hosts were recorded name none: unknown.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import BadViewerRequest

HOSTS = ("claude-code", "opencode", "amplifier", "claude-agent-sdk", "openai-agents")
"""The hosts whose adapters name themselves on a session's start."""
UNKNOWN = "unknown"
"""The host filter's name for sessions whose journal names no host."""
HEAD = 64 * 1024
"""Bytes of a journal read to find its start (its first record, as a rule)."""
_START = b'{"kind":"session_started"'


def checked_host(value: str | None) -> str | None:
    """A host filter as asked (None for none), or a clear error."""
    if value and value not in (*HOSTS, UNKNOWN):
        raise BadViewerRequest(f"host: one of {', '.join((*HOSTS, UNKNOWN))}, not {value!r}")
    return value or None


def journal_host(path: Path) -> str:
    """The host a session journal's first start names ('' when none does in its head)."""
    return str(_start_of(path).get("host") or "")


def host_matches(host: str, wanted: str) -> bool:
    """Whether a journal's host is `wanted` (`unknown` matches journals that name none)."""
    return host == wanted or (wanted == UNKNOWN and not host)


def host_sessions(paths: list[Path], wanted: str) -> set[str]:
    """The session ids of the journals whose host is `wanted`."""
    found = set()
    for path in paths:
        start = _start_of(path)
        if host_matches(str(start.get("host") or ""), wanted):
            found.add(str(start.get("session_id") or path.stem))
    return found


def _start_of(path: Path) -> dict[str, object]:
    """The journal's first `session_started` record within its first HEAD bytes ({} if none):
    read line by line, so a journal that starts with it (as a rule) costs one short read."""
    try:
        with path.open("rb") as file:
            read = 0
            while read < HEAD:
                line = file.readline(HEAD - read)
                if not line.endswith(b"\n"):
                    return {}  # the end, or a line still being written
                read += len(line)
                if line.startswith(_START):
                    found = json.loads(line)
                    return found if isinstance(found, dict) else {}
    except (OSError, ValueError):
        return {}
    return {}
