"""`onlooker plugins`: the installed plugins, what each adds, and those that failed to load.

Also the commands plugins add (`onlooker.commands`), which the `onlooker` group asks for by name.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import click

from .. import plugins
from ..errors import PluginError
from ..plugins import Plugin

_lock = threading.RLock()
_commands: dict[str, tuple[click.Command, Plugin]] = {}


def plugin_commands(builtin: set[str]) -> dict[str, tuple[click.Command, Plugin]]:
    """Command name -> (command, the plugin that added it), loaded once a process; a plugin may
    not take a name in `builtin`."""
    with _lock:
        if plugins.loaded(plugins.COMMANDS) is None:
            _commands.clear()
        plugins.load_group(plugins.COMMANDS, lambda plugin: _PluginCommands(plugin, builtin))
        return dict(_commands)


class _PluginCommands(click.Group):
    """The group a plugin's hook gets: `@cli.command()` adds to onlooker's commands."""

    def __init__(self, plugin: Plugin, builtin: set[str]) -> None:
        super().__init__(name="onlooker")
        self.plugin = plugin
        self.builtin = builtin

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        name = name or cmd.name
        if not name or name in self.builtin or name in _commands:
            raise PluginError(f"command {name!r} is taken")
        _commands[name] = (cmd, self.plugin)


def report() -> list[dict[str, Any]]:
    """Every installed plugin (every group loaded): what it adds, or why it failed."""
    from ..daemon.worker._handlers import plugin_handlers
    from ..observers import plugin_observers
    from ..side_effects import plugin_actions
    from ._commands import COMMANDS

    added: dict[Plugin, list[str]] = {}
    for registered in plugin_observers().values():
        if registered.plugin is not None:
            added.setdefault(registered.plugin, []).append(" or ".join(registered.names()))
    for kind, (_, plugin) in plugin_handlers().items():
        added.setdefault(plugin, []).append(kind)
    for name, (_, plugin) in plugin_actions().items():
        added.setdefault(plugin, []).append(name)
    for name, (_, plugin) in plugin_commands(set(COMMANDS)).items():
        added.setdefault(plugin, []).append(name)
    found = []
    for group in plugins.GROUPS:
        loaded = plugins.loaded(group) or plugins.Group()
        errors = {f.plugin: f.error for f in loaded.failures}
        for plugin in loaded.plugins:
            found.append(
                {
                    "package": plugin.package,
                    "group": plugin.group,
                    "entry_point": plugin.name,
                    "value": plugin.value,
                    "adds": added.get(plugin, []),
                    "error": errors.get(plugin),
                }
            )
    return found


@click.command(name="plugins")
@click.option("--json", "as_json", is_flag=True, help="Print the plugins as JSON.")
def command(as_json: bool) -> None:
    """List installed plugins and what each adds (observers, job kinds, commands). Exits 1 when
    a plugin failed to load."""
    found = report()
    if as_json:
        click.echo(json.dumps(found, indent=2))
    else:
        for line in lines(found) or [f"no plugins installed ({', '.join(plugins.GROUPS)})"]:
            click.echo(line)
    raise SystemExit(1 if any(p["error"] for p in found) else 0)


def lines(found: list[dict[str, Any]]) -> list[str]:
    """One line a plugin: `onlooker-example-plugin 0.1.0  observers: secret-files or secrets`."""
    shown = []
    for p in found:
        what = p["group"].removeprefix("onlooker.")
        name = p["package"] or f"{p['entry_point']} = {p['value']}"
        if p["error"]:
            shown.append(f"{name}  {what}: FAILED to load: {p['error']}")
        else:
            shown.append(f"{name}  {what}: {', '.join(p['adds']) or 'nothing'}")
    return shown
