"""Replay spread over processes: whole session files to forked workers, results in file order.

The workers are forked, so they inherit the observers and their factory and import nothing again;
they are used only where fork is safe (Linux) and when several files hold bytes enough to pay for
them. What comes out, and in which order, is what replaying the files one by one gives
(specs/replay.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ...core.engine import CallAlarm, held_alarm
from ...errors import TranscriptError
from .replay import ObserverFactory, SessionReplay, replay_transcript
from .transcripts import read_transcript, subagent_dir

PARALLEL_BYTES = 8_000_000
"""Below this many bytes of transcripts in all, starting workers costs more than it saves."""

CHUNKS_A_WORKER = 8
"""Files go to the workers in runs, about this many a worker: each hand-over costs the parent
time, and runs this short still even out files of different sizes."""

Replayed = Iterator[tuple[Path, list[Any]]]
"""Each file with its sessions (the session, then its subagents) as `each` gives them, in the
files' order."""

Each = Callable[[SessionReplay], Any]
"""What a session is turned into where it is replayed (in a worker: what is sent back)."""

_work: tuple[ObserverFactory | None, float | None, Each | None] = (None, None, None)
"""The observers, the deadline and `each` of the replay under way, set before the workers fork."""


def fork_available() -> bool:
    """Fork is a start method here and a safe one (macOS's system libraries are not)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def workers_for(files: Sequence[Path], requested: int | None = None) -> int:
    """How many processes replay `files`: `requested` (at most one a file), else one a core when
    there are several files and PARALLEL_BYTES of transcripts; 1 means this process alone."""
    if not fork_available() or len(files) < 2:
        return 1
    if requested is not None:
        return max(1, min(requested, len(files)))
    if cores() < 2 or transcript_bytes(files, enough=PARALLEL_BYTES) < PARALLEL_BYTES:
        return 1
    return min(cores(), len(files))


def transcript_bytes(files: Sequence[Path], *, enough: int | None = None) -> int:
    """The size of the session files with their subagents' (0 for what cannot be read); once
    past `enough`, the rest is not looked at."""
    total = 0
    for file in files:
        if enough is not None and total >= enough:
            break
        try:
            total += file.stat().st_size
            if file.suffix == ".jsonl" and subagent_dir(file).is_dir():
                total += sum(agent.stat().st_size for agent in subagent_dir(file).iterdir())
        except OSError:
            continue
    return total


@contextmanager
def replaying(
    files: Sequence[Path],
    observers: ObserverFactory | None = None,
    *,
    deadline_minutes: float | None = None,
    workers: int | None = None,
    each: Each | None = None,
) -> Iterator[Replayed]:
    """Replay `files` on `workers_for(files, workers)` processes; the workers are forked on
    entering, before the caller starts any thread (a progress bar's). Each session comes as
    `each(session)` (the SessionReplay itself for None): work done in the workers, and what
    they send back (`--json` text costs the parent less to take than objects).

    A file that cannot be read raises its TranscriptError where the files' order reaches it, after
    the sessions of the files before it, as replaying them one by one does. In this process alone,
    the observers' time limit has one handler installed over the block, for every session
    (`held_alarm`), rather than one a session.
    """
    count = workers_for(files, workers)
    if count == 1:
        with held_alarm() as alarm:
            yield _one_by_one(files, observers, deadline_minutes, each, alarm)
        return
    import multiprocessing  # only here: importing the pool costs tens of milliseconds
    from concurrent.futures import ProcessPoolExecutor

    global _work
    _work = (observers, deadline_minutes, each)
    pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"))
    try:
        # Every file is handed over now, which forks every worker (fork: all at the first).
        chunk = max(1, len(files) // (count * CHUNKS_A_WORKER))
        yield _in_order(files, pool.map(_replay_file, files, chunksize=chunk))
    finally:
        _work = (None, None, None)
        pool.shutdown(cancel_futures=True)


def _in_order(files: Sequence[Path], results: Iterator[list[Any]]) -> Replayed:
    """Each file with its results; a worker that died (killed, out of memory) is a clear error
    naming the file it left unreplayed, not a traceback."""
    from concurrent.futures.process import BrokenProcessPool

    for file in files:
        try:
            found = next(results)
        except BrokenProcessPool:
            raise TranscriptError(
                f"{file}: the worker process replaying it ended before it was done (killed, or "
                "out of memory?); --jobs 1 replays in this process"
            ) from None
        yield file, found


def _one_by_one(
    files: Sequence[Path],
    observers: ObserverFactory | None,
    deadline_minutes: float | None,
    each: Each | None,
    alarm: CallAlarm,
) -> Replayed:
    for file in files:
        yield file, _replay(file, observers, deadline_minutes, each, alarm)


def _replay_file(file: Path) -> list[Any]:
    """In a worker: one file with the replay's observers, deadline and `each`."""
    return _replay(file, *_work)


def _replay(
    file: Path,
    observers: ObserverFactory | None,
    deadline_minutes: float | None,
    each: Each | None,
    alarm: CallAlarm | None = None,
) -> list[Any]:
    sessions = replay_transcript(
        read_transcript(file), observers, deadline_minutes=deadline_minutes, alarm=alarm
    )
    return sessions if each is None else [each(session) for session in sessions]
