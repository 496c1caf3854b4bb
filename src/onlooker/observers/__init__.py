"""Built-in observers and their registry: names as they appear in output, plus short aliases.

`builtin_observers()` gives the default set; `get_observer("stall")` or `get_observer("Stall")`
builds one by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..core.observer import Observer
from ..errors import ConfigError
from .cascade import ErrorCascadeObserver
from .deadline import DeadlineObserver
from .drift import DriftObserver
from .plan_progress import PlanProgressObserver
from .stall import StallObserver

#: Display name -> factory. Order is the order of output.
BUILTIN: dict[str, Callable[[], Observer]] = {
    "Deadline": DeadlineObserver,
    "Plan Progress": PlanProgressObserver,
    "Stall": StallObserver,
    "Error Cascade": ErrorCascadeObserver,
    "Drift": DriftObserver,
}


def _slug(name: str) -> str:
    return name.lower().replace("_", "-").replace(" ", "-")


def builtin_names() -> list[str]:
    return list(BUILTIN)


def get_observer(name: str) -> Observer:
    """A built-in observer by its display name, its slug, or any word of it.

    `Plan Progress`, `plan-progress`, `plan`; `Error Cascade`, `error-cascade`, `cascade`.
    """
    wanted = _slug(name)
    for display, factory in BUILTIN.items():
        slug = _slug(display)
        if wanted == slug or wanted in slug.split("-"):
            return factory()
    known = ", ".join(_slug(n) for n in BUILTIN)
    raise ConfigError(f"unknown observer {name!r}; built-in observers are: {known}")


def builtin_observers(names: Iterable[str] | None = None) -> list[Observer]:
    """The named built-ins, or all of them."""
    if names is None:
        return [factory() for factory in BUILTIN.values()]
    return [get_observer(name) for name in names]
