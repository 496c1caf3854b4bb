"""How much of the machine other processes took while a benchmark measured (Linux, /proc): the CPU
the whole machine spent, less this process's, its waited-for children's (a CLI and what it ran)
and those of the background processes named (the hook service, its worker), over the wall time.

On a machine shared with other work, a round in which others took much of the CPU is slower for
reasons outside what is measured; benchmarks say so beside its figures instead of hiding it.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Iterable
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
CORES = os.cpu_count() or 1


def _machine_busy() -> float | None:
    """CPU seconds the machine has spent busy (all cores, idle and I/O wait left out)."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return None
    ticks = [int(value) for value in fields[:8]]
    return (sum(ticks) - ticks[3] - ticks[4]) / TICKS


def _process_cpu(pid: int) -> float:
    """CPU seconds of `pid` and its waited-for children (0 when it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text.rpartition(")")[2].split()
    return sum(int(value) for value in fields[11:15]) / TICKS


def _own_cpu(pids: Iterable[int]) -> float:
    mine = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime
    return spent + sum(_process_cpu(pid) for pid in pids)


class OthersLoad:
    """Measures one window: `OthersLoad(background)`, the work, then `cores()`. `background`
    gives the pids of this benchmark's own background processes at the time it is called."""

    def __init__(self, background: Callable[[], Iterable[int]] = tuple) -> None:
        self.background = background
        self._pids = set(background())
        self._busy = _machine_busy()
        self._own = _own_cpu(self._pids)
        self._wall = time.monotonic()

    def cores(self) -> float | None:
        """Cores other processes kept busy on average since the start (None: not on Linux)."""
        busy = _machine_busy()
        if busy is None or self._busy is None:
            return None
        pids = self._pids | set(self.background())
        own = _own_cpu(pids) - self._own  # a background process started meanwhile counts whole
        wall = max(time.monotonic() - self._wall, 1e-6)
        return max(0.0, (busy - self._busy - own) / wall)
