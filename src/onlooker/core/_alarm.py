"""The engine's SIGALRM over a run of observer calls, each within its own time limit.

The handler is installed once for a dispatch (or a run of them, `Engine.dispatching`). The
timer is not armed afresh for every call: a call looks at when the armed timer rings, and arms
it only when it would ring after the call's limit (or has rung). When it rings before the
running call's limit, the handler sets it again for the rest of that limit; past the limit it
raises ObserverTimeout in the call. A ring while no call runs times nothing out. So a run of
calls under the same limit arms the timer about once per limit's length, not once per call: a
replay makes some 60,000 observer calls per 100 MB of transcripts. See specs/engine.md.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from ..errors import ObserverTimeout
from ._time_limit import alarm_available

T = TypeVar("T")
A = TypeVar("A")

_clock = time.monotonic
NOT_RUN: Any = object()
"""What `CallAlarm.observe` gives when `should_run` said no."""


class CallAlarm:
    """SIGALRM held by one engine: `install`, then `call` as often as needed, then `restore`."""

    __slots__ = ("_ends", "_limit", "_observing", "_rings", "installed", "thread")

    def __init__(self) -> None:
        self.installed = False
        self.thread = 0
        """The thread that installed the handler (the main thread): the only one it times."""
        self._observing = False
        """In a call: only then does a ring time anything out."""
        self._ends = 0.0
        """When the running call's limit is reached (monotonic seconds)."""
        self._limit = 0.0
        self._rings = 0.0
        """When the armed timer rings (0: it is not armed, or has rung)."""

    def install(self) -> Any:
        """Install the handler; returns the one it replaced. None when SIGALRM cannot be used
        here (not the main thread, or a handler is already in place)."""
        if not alarm_available():
            return None
        previous = signal.signal(signal.SIGALRM, self._on_alarm)
        self.installed = True
        self.thread = threading.get_ident()
        return previous

    def restore(self, previous: Any) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)  # disarmed once here, not after every call
        signal.signal(signal.SIGALRM, previous)
        self.installed = False
        self._rings = 0.0

    def call(self, call: Callable[[A], T], arg: A, timeout: float) -> T:
        """`call(arg)`, raising ObserverTimeout in it once `timeout` seconds have passed."""
        try:
            self._start(timeout)
            return call(arg)
        finally:
            self._observing = False

    def observe(self, observer: Any, ctx: Any, timeout: float) -> Any:
        """`observer.should_run(ctx)`, then, if it says yes, `observer.observe(ctx)`, each
        within `timeout`; NOT_RUN when it said no."""
        try:
            self._start(timeout)
            if not observer.should_run(ctx):
                return NOT_RUN
            self._observing = False
            self._start(timeout)
            return observer.observe(ctx)
        finally:
            self._observing = False

    def _start(self, timeout: float) -> None:
        """A call's limit begins: the timer is armed unless it rings before the limit anyway."""
        now = _clock()
        ends = now + timeout
        self._ends, self._limit = ends, timeout  # before observing: a ring never sees it stale
        self._observing = True  # before looking at the timer: a ring from here on re-arms it
        if not now < self._rings <= ends:
            self._arm(timeout, now)

    def _arm(self, seconds: float, now: float) -> None:
        self._rings = now + seconds
        signal.setitimer(signal.ITIMER_REAL, seconds)

    def _on_alarm(self, signum: int, frame: Any) -> None:
        self._rings = 0.0
        if not self._observing:
            return  # between calls: nothing runs late
        now = _clock()
        left = self._ends - now
        if left <= 0:
            raise ObserverTimeout(f"ran past its {self._limit:g}s timeout")
        self._arm(max(left, 1e-6), now)  # rang early: the rest of the running call's limit


@contextmanager
def held_alarm() -> Iterator[CallAlarm]:
    """A time limit's handler installed over the block (where SIGALRM can be used), for engines
    made in it with `Engine(alarm=...)`, one after another on this thread: a replay makes an
    engine a session, and installing and restoring the handler for each cost it some 5 % of its
    time. Each engine's `dispatching` finds it installed and leaves it (specs/engine.md)."""
    alarm = CallAlarm()
    previous = alarm.install()
    try:
        yield alarm
    finally:
        if previous is not None:
            alarm.restore(previous)
