"""Time limits for observer calls: SIGALRM on the main thread, a watchdog thread elsewhere.

The engine calls every observer through these so one that runs past its timeout becomes an
ObserverTimeout instead of holding up the agent. See specs/engine.md.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..errors import ObserverTimeout
from .observer import ObserveResult

T = TypeVar("T")


def call_within(call: Callable[[], T], timeout: float | None) -> T:
    """Call with a time limit: SIGALRM on the main thread, a watchdog thread elsewhere."""
    if timeout is None:
        return call()
    if alarm_available():
        return _call_with_alarm(call, timeout)
    return _call_in_thread(call, timeout)


def alarm_available() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN)
    )


def _call_with_alarm(call: Callable[[], T], timeout: float) -> T:
    def on_alarm(signum: int, frame: Any) -> None:
        raise ObserverTimeout(f"ran past its {timeout:g}s timeout")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return call()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call_in_thread(call: Callable[[], T], timeout: float | None) -> T:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=run, name="onlooker-observer", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise ObserverTimeout(f"ran past its {timeout:g}s timeout")
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


async def as_coroutine(awaitable: Awaitable[T]) -> T:
    return await awaitable


def await_blocking(awaitable: Awaitable[ObserveResult], timeout: float | None) -> ObserveResult:
    """Wait for an async observer from synchronous code, within its time limit."""
    import asyncio  # only async observers pay for it; the hook path stays lean

    async def run() -> ObserveResult:
        try:
            return await asyncio.wait_for(as_coroutine(awaitable), timeout)
        except TimeoutError:
            raise ObserverTimeout(f"ran past its {timeout:g}s timeout") from None

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run())
    return _call_in_thread(lambda: asyncio.run(run()), None)
