"""The `trajectory` section of a config file: which observers run (built-in or from plugins),
their own fields (thresholds, `trigger`), and a session deadline."""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING, Any

from ..core.observer import Observer
from ..core.triggers import Trigger
from ..observers import BUILTIN, Registered, available, find_observer, plugin_observers
from .document import Reader, did_you_mean
from .project import TrajectoryOptions

if TYPE_CHECKING:
    import yaml

TRAJECTORY_KEYS = ("deadline_minutes", "observers")
TRIGGER_KEYS = ("every_n_calls", "every_n_seconds", "on_event", "tools")

log = logging.getLogger("onlooker.config")


def read_trajectory(reader: Reader, node: yaml.Node, key: str) -> TrajectoryOptions | None:
    """The options a `trajectory` section sets; problems go to the reader."""
    return _Trajectory(reader).trajectory(node, key)


class _Trajectory:
    def __init__(self, reader: Reader) -> None:
        self.r = reader

    def trajectory(self, node: yaml.Node, key: str) -> TrajectoryOptions | None:
        config = self.r.mapping(node, key, TRAJECTORY_KEYS)
        if config is None:
            return None
        minutes = self.r.number(config.get("deadline_minutes"), f"{key}.deadline_minutes", None)
        chosen = self.r.mapping(config.get("observers"), f"{key}.observers")
        if chosen is None:
            return None
        wanted: dict[str, Observer | None] = {}
        for name, value in chosen.items():
            where = f"{key}.observers.{name}"
            found = find_observer(name)  # plugins load only for a name that is not built in
            if found is None:
                names = [n for r in _everything() for n in r.names()]
                self.r.problem(
                    value, where, f"unknown observer type{did_you_mean(name, names)}; {available()}"
                )
            elif found.display in wanted:
                self.r.problem(value, where, f"{found.display!r} is already set above")
            else:
                wanted[found.display] = self.observer(found, value, where)
        if minutes is None and "deadline_minutes" in config:
            return None  # its problem is reported; the observers above were checked all the same
        observers = [factory() for display, factory in BUILTIN.items() if display not in wanted]
        observers.extend(o for o in wanted.values() if o is not None)
        order = {display: i for i, display in enumerate(BUILTIN)}
        observers.sort(key=lambda o: order.get(o.name, len(order)))  # built-ins first, then plugins
        return TrajectoryOptions(tuple(observers), minutes)

    def observer(self, found: Registered, node: yaml.Node, key: str) -> Observer | None:
        """`false` turns the observer off; `true` or a mapping of its fields turns it on (a
        plugin's observer is off unless named)."""
        if node.tag == "tag:yaml.org,2002:bool":
            on = self.r.boolean(node, key, True)
            return self.build(found, {}, node, key) if on else None
        fields = {f.name: f for f in found.fields}
        config = self.r.mapping(node, key, ["enabled", *fields])
        if config is None:
            return None
        values: dict[str, Any] = {}
        for name, value in config.items():
            if name != "enabled":
                values[name] = self.field(fields[name], value, f"{key}.{name}")
        if (
            not self.r.boolean(config.get("enabled"), f"{key}.enabled", True)
            or None in values.values()
        ):
            return None
        return self.build(found, values, node, key)

    def field(self, field: dataclasses.Field[Any], node: yaml.Node, key: str) -> Any:
        """A field's value read by its annotation; None (and a problem) when it is wrong."""
        kind = type_name(field.type)
        if kind == "Trigger":
            return self.trigger(node, key)
        if kind == "int":
            return self.r.integer(node, key, None)
        if kind == "float":
            return self.r.number(node, key, None, positive=False)
        if kind == "bool":
            return self.r.boolean(node, key, False)
        if kind == "str":
            return self.r.string(node, key)
        if kind in ("tuple[str, ...]", "Tuple[str, ...]"):
            return self.r.strings(node, key)
        self.r.problem(node, key, f"a field of type {kind} cannot be set in a config file")
        return None

    def build(
        self, found: Registered, values: dict[str, Any], node: yaml.Node, key: str
    ) -> Observer | None:
        """The observer with these field values; a plugin's that raises is refused here (and
        logged), so it never reaches a hook."""
        try:
            return found.factory(**values)
        except Exception as exc:
            if found.plugin is None and not isinstance(exc, TypeError | ValueError):
                raise
            message = str(exc)
            if found.plugin is not None:
                log.error("observer %r of plugin %s failed to build", found.display,
                          found.plugin, exc_info=True)  # fmt: skip
                message = f"plugin {found.plugin} failed to build it: {type(exc).__name__}: {exc}"
            self.r.problem(node, key, message)
        return None

    def trigger(self, node: yaml.Node, key: str) -> Trigger | None:
        config = self.r.mapping(node, key, TRIGGER_KEYS)
        if config is None:
            return None
        calls = self.r.integer(config.get("every_n_calls"), f"{key}.every_n_calls", None)
        seconds = self.r.number(config.get("every_n_seconds"), f"{key}.every_n_seconds", None)
        events = self.r.strings(config.get("on_event"), f"{key}.on_event")
        tools = self.r.strings(config.get("tools"), f"{key}.tools")
        if (
            (calls is None and "every_n_calls" in config)
            or events is None
            or tools is None
            or (seconds is None and "every_n_seconds" in config)
        ):
            return None
        return Trigger(every_n_calls=calls, every_n_seconds=seconds, on_event=events, tools=tools)


def type_name(annotation: Any) -> str:
    """A field's annotation as written: `int`, `Trigger`, `tuple[str, ...]`."""
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation)


def _everything() -> list[Registered]:
    found = [r for name in BUILTIN if (r := find_observer(name)) is not None]
    return [*found, *plugin_observers().values()]
