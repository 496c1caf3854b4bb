"""`onlooker install claude-code` and `onlooker uninstall claude-code`: wire the hooks in or out."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from ..errors import InstallError
from ..hosts.claude_code.install import (
    SCOPES,
    Change,
    install,
    settings_path,
    uninstall,
    write_plugin,
)
from ..hosts.claude_code.mcp_registration import (
    install_mcp,
    mcp_config_target,
    uninstall_mcp,
    write_plugin_mcp,
)
from ..store.home import data_home

_scope = click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="project",
    show_default=True,
    help="project: .claude/settings.json; local: .claude/settings.local.json (not committed); "
    "user: ~/.claude/settings.json (every project).",
)
_project = click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The project folder (for project and local scope).",
)
_dry_run = click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
_json = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
_mcp = click.option(
    "--mcp/--no-mcp",
    default=True,
    show_default=True,
    help="Also register (or remove) the `onlooker mcp` server: .mcp.json at the project root "
    "(project scope) or ~/.claude.json (local and user scope; $CLAUDE_CONFIG_DIR/.claude.json "
    "when set).",
)


@click.group(name="install")
def command() -> None:
    """Install onlooker into an agent host."""


@command.command(name="claude-code")
@_scope
@_project
@_dry_run
@_json
@_mcp
@click.option(
    "--plugin",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write a Claude Code plugin folder here instead of editing settings.",
)
def install_claude_code(
    scope: str, project: Path, dry_run: bool, as_json: bool, mcp: bool, plugin: Path | None
) -> None:
    """Merge onlooker's hooks into Claude Code's settings.json and register its MCP server.

    A backup of each file is kept in the data home first; running it again changes nothing;
    other hooks, servers and keys are left as they are. `onlooker uninstall claude-code` undoes it.
    """
    if plugin is not None:
        written = [] if dry_run else write_plugin(plugin)
        if mcp and not dry_run:
            written.append(write_plugin_mcp(plugin))
        _report(
            {"plugin": str(plugin), "files": [str(p) for p in written], "dry_run": dry_run}, as_json
        )
        return
    change = _run(
        lambda: install(settings_path(scope, project.absolute()), data_home(), dry_run=dry_run)
    )
    if not mcp:
        _show(change, "installed", dry_run, as_json)
        return
    path, keys = mcp_config_target(scope, project.absolute())
    server = _run(lambda: install_mcp(path, keys, data_home(), dry_run=dry_run))
    _show_both(change, server, "installed", dry_run, as_json)


def _run(action: Callable[[], Change]) -> Change:
    try:
        return action()
    except InstallError as exc:
        raise click.ClickException(str(exc)) from None


def _show(change: Change, verb: str, dry_run: bool, as_json: bool) -> None:
    if as_json:
        _report({**change.to_dict(), "dry_run": dry_run}, True)
        return
    if dry_run:
        click.echo(f"Would write {change.path}:\n")
        click.echo(change.after if change.after is not None else "(the file would be removed)")
        return
    if not change.changed:
        click.echo(
            f"Nothing to change in {change.path} ({'; '.join(change.notes) or 'already ' + verb})."
        )
        return
    click.echo(f"onlooker hooks {verb} in {change.path}: {', '.join(change.events)}")
    if change.backup:
        click.echo(f"backup: {change.backup}")
    for note in change.notes:
        click.echo(note)


def _show_both(hooks: Change, server: Change, verb: str, dry_run: bool, as_json: bool) -> None:
    if as_json:
        _report({**hooks.to_dict(), "dry_run": dry_run, "mcp": _mcp_dict(server)}, True)
        return
    _show(hooks, verb, dry_run, False)
    if dry_run:
        click.echo(f"\nWould write {server.path}:\n")
        click.echo(server.after if server.after is not None else "(the file would be removed)")
    elif server.changed:
        click.echo(f"onlooker MCP server {verb} in {server.path}")
        if server.backup:
            click.echo(f"backup: {server.backup}")
    else:
        click.echo(
            f"Nothing to change in {server.path} ({'; '.join(server.notes) or 'already ' + verb})."
        )


def _mcp_dict(change: Change) -> dict[str, object]:
    return {
        "config": str(change.path),
        "server": "onlooker",
        "changed": change.changed,
        "backup": str(change.backup) if change.backup else None,
        "notes": list(change.notes),
    }


def _report(data: dict[str, object], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        for key, value in data.items():
            click.echo(f"{key}: {value}")


@click.group(name="uninstall")
def uninstall_command() -> None:
    """Remove onlooker from an agent host."""


@uninstall_command.command(name="claude-code")
@_scope
@_project
@_dry_run
@_json
@_mcp
def uninstall_claude_code(
    scope: str, project: Path, dry_run: bool, as_json: bool, mcp: bool
) -> None:
    """Remove exactly the hooks and the MCP server `onlooker install claude-code` added."""
    change = _run(
        lambda: uninstall(settings_path(scope, project.absolute()), data_home(), dry_run=dry_run)
    )
    if not mcp:
        _show(change, "removed", dry_run, as_json)
        return
    path, keys = mcp_config_target(scope, project.absolute())
    server = _run(lambda: uninstall_mcp(path, keys, data_home(), dry_run=dry_run))
    _show_both(change, server, "removed", dry_run, as_json)
