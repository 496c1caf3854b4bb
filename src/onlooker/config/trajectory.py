"""The `trajectory` section of a config file: which built-in observers run, their own fields
(thresholds, `trigger`), and a session deadline."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ..core.observer import Observer
from ..core.triggers import Trigger
from ..observers import BUILTIN
from .document import Reader, did_you_mean
from .project import TrajectoryOptions

if TYPE_CHECKING:
    import yaml

TRAJECTORY_KEYS = ("deadline_minutes", "observers")
TRIGGER_KEYS = ("every_n_calls", "every_n_seconds", "on_event", "tools")


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
        if chosen is None or (minutes is None and "deadline_minutes" in config):
            return None
        wanted: dict[str, Observer | None] = {}
        for name, value in chosen.items():
            where = f"{key}.observers.{name}"
            display = builtin_name(name)
            if display is None:
                slugs = [_slug(n) for n in BUILTIN]
                self.r.problem(
                    value,
                    where,
                    f"unknown observer type{did_you_mean(name, slugs)}; "
                    f"built-in observers are: {', '.join(slugs)}",
                )
                continue
            wanted[display] = self.builtin(display, value, where)
        observers = []
        for display, factory in BUILTIN.items():
            if display not in wanted:
                observers.append(factory())
            elif (observer := wanted[display]) is not None:
                observers.append(observer)
        return TrajectoryOptions(tuple(observers), minutes)

    def builtin(self, display: str, node: yaml.Node, key: str) -> Observer | None:
        """`false` turns the observer off; `true` or a mapping of its fields turns it on."""
        factory = BUILTIN[display]
        if node.tag == "tag:yaml.org,2002:bool":
            return factory() if self.r.boolean(node, key, True) else None
        fields = {f.name: f for f in dataclasses.fields(factory)}  # type: ignore[arg-type]
        config = self.r.mapping(node, key, ["enabled", *fields])
        if config is None:
            return None
        values: dict[str, Any] = {}
        for name, value in config.items():
            if name == "enabled":
                continue
            kind = fields[name].type
            if kind == "Trigger":
                values[name] = self.trigger(value, f"{key}.{name}")
            elif kind == "int":
                values[name] = self.r.integer(value, f"{key}.{name}", None)
            else:
                values[name] = self.r.number(value, f"{key}.{name}", None, positive=False)
        if (
            not self.r.boolean(config.get("enabled"), f"{key}.enabled", True)
            or None in values.values()
        ):
            return None
        try:
            return factory(**values)
        except (TypeError, ValueError) as exc:
            self.r.problem(node, key, str(exc))
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


def _slug(name: str) -> str:
    return name.lower().replace("_", "-").replace(" ", "-")


def builtin_name(name: str) -> str | None:
    """The display name of a built-in observer named by display name, slug or one of its words."""
    wanted = _slug(name)
    for display in BUILTIN:
        if wanted == _slug(display) or wanted in _slug(display).split("-"):
            return display
    return None
