"""Observers by name: the built-ins and those plugins add (`onlooker.observers` entry points).

`builtin_observers()` gives the default set; `get_observer("stall")` builds one by any name.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import plugins
from ..core.observer import Observer
from ..errors import ConfigError, PluginError
from ..plugins import Plugin
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


@dataclass(frozen=True, slots=True)
class Registered:
    """An observer a config file can name: how to build it and which fields it takes."""

    display: str
    """Its name in output (`Error Cascade`)."""
    factory: Callable[..., Observer]
    """Builds one; keyword arguments set its fields."""
    fields: tuple[dataclasses.Field[Any], ...] = ()
    """Its dataclass fields (what a config file may set)."""
    aliases: tuple[str, ...] = ()
    plugin: Plugin | None = None
    """The plugin that registered it; None for a built-in."""

    @property
    def slug(self) -> str:
        """Its name in a config file (`error-cascade`)."""
        return slug(self.display)

    def names(self) -> tuple[str, ...]:
        return (self.slug, *self.aliases)


def slug(name: str) -> str:
    return name.lower().replace("_", "-").replace(" ", "-")


def builtin_names() -> list[str]:
    return list(BUILTIN)


def find_observer(name: str) -> Registered | None:
    """The observer called `name`: a built-in by display name, slug or one word of it
    (`Plan Progress`, `plan-progress`, `plan`), else a plugin's by slug or alias.

    Plugins are loaded only when `name` is not a built-in's.
    """
    display = find_builtin(name)
    if display is not None:
        return _builtin(display)
    wanted = slug(name)
    for fresh in (False, True):  # an unknown name looks again: a plugin installed since
        for registered in plugin_observers(fresh=fresh).values():
            if wanted in registered.names():
                return registered
    return None


def get_observer(name: str) -> Observer:
    """An observer, built-in or from a plugin, with its defaults; ConfigError names the choices."""
    found = find_observer(name)
    if found is None:
        raise ConfigError(f"unknown observer {name!r}; {available()}")
    return found.factory()


def builtin_observers(names: Iterable[str] | None = None) -> list[Observer]:
    """The named observers (plugins' too), or all the built-ins."""
    if names is None:
        return [factory() for factory in BUILTIN.values()]
    return [get_observer(name) for name in names]


def available() -> str:
    """The observers there are, for an error message (loads the plugins)."""
    text = f"built-in observers are: {', '.join(slug(n) for n in BUILTIN)}"
    found = plugin_observers()
    if found:
        text += "; plugin observers are: " + ", ".join(
            f"{' or '.join(r.names())} ({r.plugin.package or r.plugin})"
            for r in found.values()
            if r.plugin
        )
    failed = plugin_failures()
    if failed:
        text += "; plugins that failed to load: " + "; ".join(str(f) for f in failed)
    return text


def plugin_observers(*, fresh: bool = False) -> dict[str, Registered]:
    """The observers installed plugins registered, by display name (loaded once a process, or
    again when `fresh`)."""
    with _lock:
        if fresh:
            plugins.forget(plugins.OBSERVERS)
        if plugins.loaded(plugins.OBSERVERS) is None:
            _from_plugins.clear()
        plugins.load_group(plugins.OBSERVERS, _register_for)
        return dict(_from_plugins)


def plugin_failures() -> tuple[plugins.PluginFailure, ...]:
    found = plugins.loaded(plugins.OBSERVERS)
    return found.failures if found is not None else ()


_lock = threading.RLock()
_from_plugins: dict[str, Registered] = {}


def _register_for(plugin: Plugin) -> Callable[..., None]:
    def register(observer: Any, *, aliases: Sequence[str] = ()) -> None:
        """Register an observer class (or factory), or one observer; `aliases` are other
        names a config file may use for it."""
        names = (aliases,) if isinstance(aliases, str) else aliases
        found = _registered(observer, tuple(slug(a) for a in names), plugin)
        taken = {n for r in _from_plugins.values() for n in r.names()}
        clash = [n for n in found.names() if n in taken or find_builtin(n)]
        if clash or found.display in BUILTIN or found.display in _from_plugins:
            name = clash[0] if clash else found.display
            raise PluginError(f"observer {found.display!r}: the name {name!r} is taken")
        _from_plugins[found.display] = found

    return register


def _registered(observer: Any, aliases: tuple[str, ...], plugin: Plugin) -> Registered:
    if isinstance(observer, type) or not isinstance(observer, Observer):
        if not callable(observer):
            raise PluginError(f"{observer!r} is neither an observer nor makes one")
        factory: Callable[..., Observer] = observer
        sample = factory()  # a plugin whose observer cannot be built fails now, not in a hook
        if not isinstance(sample, Observer):
            raise PluginError(f"{observer!r} made {type(sample).__name__}, not an observer")
        is_class = isinstance(observer, type) and dataclasses.is_dataclass(observer)
        fields = dataclasses.fields(observer) if is_class else ()
    else:
        sample = observer
        if dataclasses.is_dataclass(observer):
            factory = functools.partial(dataclasses.replace, observer)
            fields = dataclasses.fields(observer)
        else:
            factory = lambda: observer  # noqa: E731
            fields = ()
    settable = tuple(f for f in fields if f.init and not f.name.startswith("_"))
    return Registered(sample.name, factory, settable, aliases, plugin)


def find_builtin(name: str) -> str | None:
    """The display name of the built-in called `name` (never loads plugins)."""
    wanted = slug(name)
    for display in BUILTIN:
        if wanted == slug(display) or wanted in slug(display).split("-"):
            return display
    return None


@functools.cache
def _builtin(display: str) -> Registered:
    factory = BUILTIN[display]
    fields = dataclasses.fields(factory) if isinstance(factory, type) else ()
    return Registered(display, factory, tuple(f for f in fields if f.init))
