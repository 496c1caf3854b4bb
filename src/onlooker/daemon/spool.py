"""The spool: hook inputs that could not be handled, kept (redacted) with the reason. The hook
service replays them once it is healthy; one that fails again is refused, never retried in a loop.

`spool/*.hook` wait to be replayed; `spool/refused/*.hook` cannot go through and wait for a person
(`onlooker doctor` lists them, `--discard-spool` removes them).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..hosts.claude_code.hook import HookHandler
from .client import REFUSED_DIR, SPOOL_DIR


@dataclass(frozen=True, slots=True)
class SpoolEntry:
    path: Path
    reason: str
    size: int

    @property
    def payload(self) -> bytes:
        return self.path.read_bytes().partition(b"\n")[2]


def spool_entries(home: Path, *, refused: bool = False) -> tuple[SpoolEntry, ...]:
    """The spooled inputs waiting to be replayed, or those refused for good; oldest first."""
    folder = home / SPOOL_DIR / REFUSED_DIR if refused else home / SPOOL_DIR
    if not folder.is_dir():
        return ()
    entries = []
    for path in sorted(folder.glob("*.hook")):
        with contextlib.suppress(OSError):
            head = path.read_bytes()
            reason, _, payload = head.partition(b"\n")
            text = reason.decode("utf-8", "replace").removeprefix("# ")
            entries.append(SpoolEntry(path, text, len(payload)))
    return tuple(entries)


def replay(
    handler: HookHandler,
    home: Path,
    run: Callable[[bytes, Callable[[], None]], None] | None = None,
) -> tuple[int, int]:
    """Hand each waiting input to `handler` once more: (went through, refused). One that fails
    again is moved to the refused inputs with its new reason. `run(payload, work)` runs each
    replay where the caller wants it (the service: in its session's lane; the counts are then
    those of the replays done by the time it returns); default: at once."""
    outcome = [0, 0]

    def one(entry: SpoolEntry) -> None:
        try:
            payload = entry.payload
        except OSError:
            return  # replayed meanwhile
        failure, _lasting = handler.replay(payload)
        if failure:
            handler.spool(payload, f"replayed, and failed again: {failure}", refused=True)
            outcome[1] += 1
        else:
            outcome[0] += 1
        with contextlib.suppress(FileNotFoundError):
            entry.path.unlink()

    for entry in spool_entries(home):
        if run is None:
            one(entry)
        else:
            with contextlib.suppress(OSError):
                run(entry.payload, functools.partial(one, entry))
    return outcome[0], outcome[1]


def discard_refused(home: Path) -> int:
    """Remove the refused inputs; how many there were."""
    entries = spool_entries(home, refused=True)
    for entry in entries:
        with contextlib.suppress(FileNotFoundError):
            entry.path.unlink()
    return len(entries)
