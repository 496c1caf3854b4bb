"""`onlooker install opencode` and `onlooker uninstall opencode`: onlooker's plugin file in or out
of opencode's plugin folder (hosts/opencode/install.py)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..hosts.claude_code.config_files import Change
from ..hosts.opencode.install import SCOPES, install, plugin_path, uninstall
from ..store.home import data_home, project_root
from ._config_check import warn_about_config
from ._install_options import dry_run_option, json_option
from ._install_options import run_install as _run
from .install_memory import memory_choice

_scope = click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="project",
    show_default=True,
    help="project: this project's .opencode/plugins/; user: every project "
    "(~/.config/opencode/plugins/, or $XDG_CONFIG_HOME/opencode/plugins/).",
)
_project = click.option(
    "--project",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="A folder of the project (for project scope): the plugin goes to its root, the nearest "
    "folder at or above it with .git, .onlooker or onlooker.yaml.",
)


_memory_model = click.option(
    "--memory-model",
    default=None,
    metavar="MODEL",
    help="The model that turns sessions into memories, for every project of this data home: "
    "e.g. opencode:default (your own opencode, the model and provider its config names) or "
    "opencode:<provider>/<model>, or none (memories by rule, the default). A project's "
    "memory.model still wins.",
)


@click.command(name="opencode")
@_scope
@_project
@dry_run_option
@json_option
@_memory_model
def install_opencode(
    scope: str, project: Path, dry_run: bool, as_json: bool, memory_model: str | None
) -> None:
    """Write onlooker's plugin into opencode's plugin folder.

    The plugin forwards opencode's hooks to onlooker's hook service: a stalled tool loop shows up
    in the tool's output, and a compaction keeps onlooker's open observations. It names this
    machine's Python; running it again changes nothing; a file it replaces is backed up in the
    data home. `onlooker uninstall opencode` removes it.
    """
    home = data_home()
    ask = not (as_json or dry_run)
    chosen = memory_choice(home, memory_model, dry_run=dry_run, ask=ask, host="opencode")
    path = plugin_path(scope, project_root(project))
    change = _run(lambda: install(path, home, dry_run=dry_run))
    _show(change, "installed", dry_run, as_json, [chosen] if chosen else [])
    warn_about_config(project)


@click.command(name="opencode")
@_scope
@_project
@dry_run_option
@json_option
def uninstall_opencode(scope: str, project: Path, dry_run: bool, as_json: bool) -> None:
    """Remove onlooker's plugin from opencode's plugin folder (a file it replaced comes back)."""
    path = plugin_path(scope, project_root(project))
    _show(_run(lambda: uninstall(path, data_home(), dry_run=dry_run)), "removed", dry_run, as_json)


def _show(
    change: Change, verb: str, dry_run: bool, as_json: bool, said: list[str] | None = None
) -> None:
    said = said or []
    if as_json:
        data = {**change.to_dict(), "plugin": str(change.path), "dry_run": dry_run}
        if said:
            data["notes"] = [*data.get("notes", []), *said]
        click.echo(json.dumps(data, indent=2))
        return
    if not change.changed:
        click.echo(f"nothing to change: {change.path} ({'; '.join(change.notes) or 'up to date'})")
        for note in said:
            click.echo(f"  {note}")
        return
    would = "would be " if dry_run else ""
    click.echo(f"onlooker plugin for opencode {would}{verb}: {change.path}")
    for note in [*change.notes, *said]:
        click.echo(f"  {note}")
