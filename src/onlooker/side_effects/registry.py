"""Side-effect actions by name: the built-ins, those registered with `@side_effect`, and those
plugins add (`onlooker.side_effects` entry points, called as `hook(register)` with
`register(name, action)`), the way observers are found (specs/plugins.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TypeVar

from .. import plugins
from ..core.events import ToolCall
from ..errors import PluginError
from ..plugins import Plugin
from .actions import (
    EffectContext,
    collect_media,
    save_work_product,
    summarize_search,
)
from .activity_log import activity_log
from .archive import Written

Action = Callable[[ToolCall, EffectContext], "Written | Iterable[Written] | None"]
"""`action(call, ctx)`: does its work through `ctx.archive`, says what it wrote."""
A = TypeVar("A", bound=Action)

BUILTIN: dict[str, Action] = {
    "save_work_product": save_work_product,
    "summarize_search": summarize_search,
    "activity_log": activity_log,
    "collect_media": collect_media,
}

_lock = threading.RLock()
_declared: dict[str, Action] = {}
_from_plugins: dict[str, tuple[Action, Plugin]] = {}


def side_effect(name: str) -> Callable[[A], A]:
    """Make a function the action `name` for rules of this process:

        @side_effect("notify_slack")
        def notify(call: ToolCall, ctx: EffectContext) -> None: ...

    The worker runs side effects in a process of its own: a package ships its actions to it with
    an `onlooker.side_effects` entry point whose hook calls `register(name, action)`."""

    def declare(action: A) -> A:
        with _lock:
            _check(name, action)
            _declared[name] = action
        return action

    return declare


def find_action(name: str) -> Action | None:
    """The action called `name`: built in, declared in this process, else a plugin's."""
    found = BUILTIN.get(name) or _declared.get(name)
    if found is not None:
        return found
    for fresh in (False, True):  # an unknown name looks again: a plugin installed since
        registered = plugin_actions(fresh=fresh).get(name)
        if registered is not None:
            return registered[0]
    return None


def action_names() -> list[str]:
    """Every action name there is (loads the plugins)."""
    return [*BUILTIN, *sorted(_declared), *sorted(plugin_actions())]


def plugin_actions(*, fresh: bool = False) -> dict[str, tuple[Action, Plugin]]:
    """Actions installed plugins registered, with the plugin (loaded once a process)."""
    with _lock:
        if fresh:
            plugins.forget(plugins.SIDE_EFFECTS)
        if plugins.loaded(plugins.SIDE_EFFECTS) is None:
            _from_plugins.clear()
        plugins.load_group(plugins.SIDE_EFFECTS, _register_for)
        return dict(_from_plugins)


def _register_for(plugin: Plugin) -> Callable[[str, Action], None]:
    def register(name: str, action: Action) -> None:
        """Run `action` for rules whose `action:` is `name` (a name no one else uses)."""
        _check(name, action)
        if name in _from_plugins:
            raise PluginError(f"side effect {name!r} is taken")
        _from_plugins[name] = (action, plugin)

    return register


def _check(name: str, action: Action) -> None:
    if not isinstance(name, str) or not name:
        raise PluginError(f"a side effect's name is a non-empty text, got {name!r}")
    if not callable(action):
        raise PluginError(f"the side effect {name!r} is not a function (call, ctx)")
    if name in BUILTIN:
        raise PluginError(f"side effect {name!r} is built in; pick another name")
