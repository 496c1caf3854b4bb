"""How due reviewer observers run (seed 000's `execution` section of the hooks module)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ExecutionMode = Literal["inline", "parallel", "background"]
OnTimeout = Literal["skip", "fail"]


@dataclass(frozen=True, slots=True)
class Execution:
    """`parallel` runs all due reviewers at once and waits; `background` hands them to the worker
    so no hook waits on a model; `inline` runs them one by one in the caller."""

    mode: ExecutionMode = "background"
    max_concurrent: int = 5
    timeout_per_observer: float = 30.0
    on_timeout: OnTimeout = "skip"
    """`fail` makes the host deny or block with the reason, where the host can."""
