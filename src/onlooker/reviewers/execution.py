"""How due reviewer observers run (the config's `execution` section, specs/engine.md), and
`run_bounded`, which runs them all at once within their time limits."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

ExecutionMode = Literal["inline", "parallel", "background"]
OnTimeout = Literal["skip", "fail"]


@dataclass(frozen=True, slots=True)
class Execution:
    """`parallel` runs all due reviewers at once and waits; `background` hands them to the worker
    so no hook waits on a model; `inline` runs them in the hook as `parallel` does."""

    mode: ExecutionMode = "background"
    max_concurrent: int = 5
    timeout_per_observer: float = 30.0
    on_timeout: OnTimeout = "skip"
    """`fail` makes the host deny or block with the reason, where the host can."""


@dataclass(frozen=True, slots=True)
class Bounded(Generic[T]):
    """How one bounded call ended: its value, or its error, or a timeout."""

    name: str
    value: T | None = None
    error: BaseException | None = None
    timed_out: bool = False
    duration: float = 0.0


def run_bounded(
    calls: Sequence[tuple[str, float, Callable[[], Awaitable[T]]]],
    execution: Execution,
    budget: float | None = None,
) -> list[Bounded[T]]:
    """Run `(name, timeout, make_coroutine)` calls at once, `max_concurrent` at a time, each within
    min(its timeout, `timeout_per_observer`) and all within `budget` seconds (a hook's own time
    limit); results in the order given.

    The calls run on an event loop in a daemon thread, and this returns by the latest moment they
    all could have finished: a call that ignores cancellation cannot hold the caller (a hook) past
    its bound.
    """
    if not calls:
        return []
    import asyncio  # only a run pays for it; the hook path stays lean

    limits = [min(timeout, execution.timeout_per_observer) for _, timeout, _ in calls]
    slots = max(1, execution.max_concurrent)
    results: list[Bounded[T] | None] = [None] * len(calls)
    rounds = math.ceil(len(calls) / slots)
    wait = rounds * max(limits) + GRACE
    if budget is not None:
        limits = [min(limit, budget) for limit in limits]
        wait = min(wait, budget)
    ends = time.monotonic() + wait

    async def one(index: int, semaphore: asyncio.Semaphore) -> None:
        name, _, make = calls[index]
        async with semaphore:
            started = time.monotonic()
            try:
                value = await asyncio.wait_for(make(), min(limits[index], ends - started))
                results[index] = Bounded(name, value, duration=time.monotonic() - started)
            except TimeoutError:
                results[index] = Bounded(name, timed_out=True, duration=limits[index])
            except Exception as exc:
                results[index] = Bounded(name, error=exc, duration=time.monotonic() - started)

    async def all_of() -> None:
        semaphore = asyncio.Semaphore(slots)
        await asyncio.gather(*(one(i, semaphore) for i in range(len(calls))))

    runner = threading.Thread(target=asyncio.run, args=(all_of(),), daemon=True)
    runner.start()
    runner.join(wait)
    return [
        found if found is not None else Bounded(calls[i][0], timed_out=True, duration=limits[i])
        for i, found in enumerate(results)
    ]


GRACE = 1.0
"""Seconds past the bound that `run_bounded` allows the loop to wind down before it returns."""
