"""Plugins: installed packages that add observers, job handlers, side effects and commands by
entry points.

Each group is loaded once a process, when first asked for; a plugin that fails is logged and kept.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import PluginError

OBSERVERS = "onlooker.observers"
"""Entry points called as `hook(register)`; `register(observer_or_factory, aliases=())`."""
JOBS = "onlooker.jobs"
"""Entry points called as `hook(register)`; `register(kind, handler)`."""
SIDE_EFFECTS = "onlooker.side_effects"
"""Entry points called as `hook(register)`; `register(name, action)` (specs/side-effects.md)."""
COMMANDS = "onlooker.commands"
"""Entry points called as `hook(cli)` with a click group to add commands to."""
GROUPS = (OBSERVERS, JOBS, SIDE_EFFECTS, COMMANDS)


def _log() -> Any:
    """The `onlooker.plugins` logger (logging is imported when a plugin fails, not before: every
    command imports this module)."""
    import logging

    log = logging.getLogger("onlooker.plugins")
    if not any(isinstance(h, logging.NullHandler) for h in log.handlers):
        log.addHandler(logging.NullHandler())
    return log


@dataclass(frozen=True, slots=True)
class Plugin:
    """One entry point of one installed package."""

    group: str
    name: str
    """The entry point's name."""
    value: str
    """What it points at, `module:function`."""
    package: str = ""
    """The distribution that declares it, `name version` ('' when not known)."""

    def __str__(self) -> str:
        where = f"{self.name} = {self.value}"
        return f"{self.package} ({where})" if self.package else where


@dataclass(frozen=True, slots=True)
class PluginFailure:
    """A plugin that could not be loaded, and why."""

    plugin: Plugin
    error: str

    def __str__(self) -> str:
        return f"{self.plugin}: {self.error}"


@dataclass(frozen=True, slots=True)
class Group:
    """What loading a group found: every plugin in it, and those that failed."""

    plugins: tuple[Plugin, ...] = ()
    failures: tuple[PluginFailure, ...] = ()


_loaded: dict[str, Group] = {}
_locks: dict[str, threading.RLock] = {}
_locks_lock = threading.Lock()


def load_group(group: str, callback: Callable[[Plugin], Any]) -> Group:
    """Call each plugin of `group` once a process with `callback(plugin)` (its register argument).

    An entry point names a function `hook(register)`. One that fails to import, or raises while it
    registers, becomes a PluginFailure (logged), never an error here. Later calls return what the
    first one found and call nothing: a group belongs to one registry, which keeps what the
    plugins registered.
    """
    with _lock(group):
        done = _loaded.get(group)
        if done is not None:
            return done
        _loaded[group] = Group()  # a plugin that asks for its own group meanwhile finds it empty
        plugins: list[Plugin] = []
        failures: list[PluginFailure] = []
        for entry in _entry_points(group):
            plugin = _plugin(group, entry)
            plugins.append(plugin)
            try:
                hook = entry.load()
                if not callable(hook):
                    raise PluginError(f"{entry.value} is not a function that takes `register`")
                hook(callback(plugin))
            except (Exception, SystemExit) as exc:
                failures.append(PluginFailure(plugin, f"{type(exc).__name__}: {exc}"))
                import traceback

                _log().error("plugin %s failed to load: %s", plugin, traceback.format_exc())
        _loaded[group] = Group(tuple(plugins), tuple(failures))
        return _loaded[group]


def loaded(group: str) -> Group | None:
    """What `load_group` found for `group` in this process; None before it ran."""
    return _loaded.get(group)


def forget(group: str) -> None:
    """Load `group` again at the next `load_group`: its registry looks again for a name it does not
    know, in case a plugin was installed since."""
    with _lock(group):
        _loaded.pop(group, None)


def _lock(group: str) -> threading.RLock:
    """One lock a group: loading one group never waits on another's plugins."""
    with _locks_lock:
        return _locks.setdefault(group, threading.RLock())


def _entry_points(group: str) -> list[Any]:
    from importlib.metadata import entry_points

    seen: set[tuple[str, str]] = set()
    found = []
    for entry in entry_points(group=group):
        if (entry.name, entry.value) not in seen:  # a package on sys.path twice
            seen.add((entry.name, entry.value))
            found.append(entry)
    return sorted(found, key=lambda e: e.name)


def _plugin(group: str, entry: Any) -> Plugin:
    dist = getattr(entry, "dist", None)
    package = f"{dist.name} {dist.version}" if dist is not None else ""
    return Plugin(group, entry.name, entry.value, package)
