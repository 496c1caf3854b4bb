"""`onlooker install claude-code` and `onlooker uninstall claude-code`: wire the hooks in or out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..errors import InstallError
from ..hosts.claude_code.config_files import Change
from ..hosts.claude_code.git_exclude import exclude, unexclude
from ..hosts.claude_code.install import (
    SCOPES,
    hooks_file,
    install,
    installed_hooks,
    settings_path,
    uninstall,
)
from ..hosts.claude_code.key_changes import json_key_changes
from ..hosts.claude_code.mcp_registration import (
    install_mcp,
    installed_mcp,
    mcp_config_target,
    project_mcp_json,
    server_start_problem,
    uninstall_mcp,
)
from ..hosts.claude_code.plugin import install_plugin, uninstall_plugin
from ..store.home import data_home, project_root
from ._config_check import warn_about_config
from ._install_options import dry_run_option, json_option
from ._install_options import run_install as _run
from .install_memory import memory_choice
from .install_opencode import install_opencode, uninstall_opencode

HOOKS_IN, HOOKS_OUT = "onlooker hooks installed in", "onlooker hooks removed from"
SERVER_IN, SERVER_OUT = "onlooker MCP server registered in", "onlooker MCP server removed from"
Labelled = tuple[str, Change]
MCP_FIX = "install the mcp extra into that Python (pip install 'onlooker[mcp]'), then install again"

_scope = click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="project",
    show_default=True,
    help="project and local: this project on this machine (.claude/settings.local.json, which is "
    "not committed, and ~/.claude.json); user: every project (~/.claude/settings.json).",
)
_project = click.option(
    "--project",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="A folder of the project (for project and local scope): settings go to its root, the "
    "nearest folder at or above it with .git, .onlooker or onlooker.yaml, as the store uses.",
)
_mcp = click.option(
    "--mcp/--no-mcp",
    default=True,
    show_default=True,
    help="Also register (or remove) the `onlooker mcp` server, when it can start: in "
    "~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json when set), or the plugin's .mcp.json.",
)
_plugin = click.option(
    "--plugin",
    type=click.Path(path_type=Path),
    default=None,
    help="A plugin folder instead of settings: a new one, or a plugin of yours to merge into "
    "(each file is backed up first; a folder that is no plugin is refused).",
)


_memory_model = click.option(
    "--memory-model",
    default=None,
    metavar="MODEL",
    help="The model that turns sessions into memories, for every project of this data home: "
    "e.g. claude-code:haiku (your own Claude Code, its login and tokens), or none (memories by "
    "rule, the default). A project's memory.model still wins.",
)


@click.group(name="install", invoke_without_command=True)
@click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    default="user",
    show_default=True,
    help="With no host: user, every project of each host; project, this project only.",
)
@click.option("--yes", "-y", is_flag=True, help="With no host: install without asking.")
@dry_run_option
@click.pass_context
def command(ctx: click.Context, scope: str, yes: bool, dry_run: bool) -> None:
    """Install onlooker into an agent host; with no host, into each one found on this machine
    (Claude Code, opencode, Amplifier), after showing what changes."""
    if ctx.invoked_subcommand is None:
        from .install_all import install_everywhere

        install_everywhere(
            ctx,
            scope,
            yes,
            dry_run,
            install_claude_code=install_claude_code,
            install_opencode=install_opencode,
        )


@command.command(name="claude-code")
@_scope
@_project
@dry_run_option
@json_option
@_mcp
@_plugin
@_memory_model
def install_claude_code(
    scope: str,
    project: Path,
    dry_run: bool,
    as_json: bool,
    mcp: bool,
    plugin: Path | None,
    memory_model: str | None,
) -> None:
    """Merge onlooker's hooks into Claude Code's settings and register its MCP server.

    The hooks name this machine's Python, so at project scope they go into
    .claude/settings.local.json (not committed), never .claude/settings.json. A backup of each
    file is kept in the data home first; running it again changes nothing; other hooks, servers
    and keys are left as they are. `onlooker uninstall claude-code` undoes it.
    """
    home = data_home()
    problem = server_start_problem() if mcp else None
    server_note = _not_registered(problem) if problem else None
    chosen = memory_choice(home, memory_model, dry_run=dry_run, ask=not (as_json or dry_run))
    if plugin is not None:
        written = _run(
            lambda: install_plugin(plugin, home, mcp=mcp and not problem, dry_run=dry_run)
        )
        said = [note for note in (chosen, server_note) if note]
        _show_plugin(plugin, written, said, dry_run, as_json)
        warn_about_config(project)
        return
    root = project_root(project)
    target = hooks_file(scope, root)
    changes = [(HOOKS_IN, _run(lambda: install(target, home, dry_run=dry_run)))]
    notes: list[str] = []
    if scope != "user":
        committed = settings_path("project", root)
        if installed_hooks(committed):
            changes.append((HOOKS_OUT, _run(lambda: uninstall(committed, home, dry_run=dry_run))))
            notes.append(f"moved onlooker's hooks out of {committed}, which teams commit")
        notes.append(
            f"{target} names paths of this machine, so it is not committed: "
            "each teammate runs `onlooker install claude-code` on their own machine"
        )
        excluded = exclude(root, target, dry_run=dry_run)
        if excluded is not None:
            notes.append(
                f"git did not ignore {target.relative_to(root)}: "
                f"{'would add' if dry_run else 'added'} it to {excluded}, which is not committed"
            )
    if chosen:
        notes.append(chosen)
    if server_note:
        notes.append(server_note)
    elif mcp:
        path, keys = mcp_config_target(scope, root)
        changes.append((SERVER_IN, _run(lambda: install_mcp(path, keys, home, dry_run=dry_run))))
        shared = project_mcp_json(root)
        if scope != "user" and installed_mcp(shared, ("mcpServers",)):
            moved = _run(lambda: uninstall_mcp(shared, ("mcpServers",), home, dry_run=dry_run))
            changes.append((SERVER_OUT, moved))
            notes.append(f"moved onlooker's MCP server out of {shared}, which teams commit")
    _show(changes, notes, "installed", dry_run, as_json, mcp_problem=problem)
    warn_about_config(project)


command.add_command(install_opencode)


@click.group(name="uninstall")
def uninstall_command() -> None:
    """Remove onlooker from an agent host."""


@uninstall_command.command(name="claude-code")
@_scope
@_project
@dry_run_option
@json_option
@_mcp
@_plugin
def uninstall_claude_code(
    scope: str, project: Path, dry_run: bool, as_json: bool, mcp: bool, plugin: Path | None
) -> None:
    """Remove exactly the hooks and the MCP server `onlooker install claude-code` added
    (at project scope also those an earlier version put into .claude/settings.json and .mcp.json);
    with --plugin, take onlooker out of that plugin folder again."""
    home = data_home()
    if plugin is not None:
        removed = _run(lambda: uninstall_plugin(plugin, home, dry_run=dry_run))
        _show_plugin(plugin, removed, [], dry_run, as_json)
        return
    root = project_root(project)
    files = [hooks_file(scope, root)]
    if scope != "user" and installed_hooks(settings_path("project", root)):
        files.append(settings_path("project", root))
    try:
        changes = [(HOOKS_OUT, uninstall(path, home, dry_run=dry_run)) for path in files]
        unexclude(root, files[0], dry_run=dry_run)
        if mcp:
            places = [mcp_config_target(scope, root)]
            if scope != "user" and installed_mcp(project_mcp_json(root), ("mcpServers",)):
                places.append((project_mcp_json(root), ("mcpServers",)))
            changes += [
                (SERVER_OUT, uninstall_mcp(path, keys, home, dry_run=dry_run))
                for path, keys in places
            ]
    except InstallError as exc:
        raise click.ClickException(str(exc)) from None
    _show(changes, [], "removed", dry_run, as_json, mcp_problem=None)


# -- output ---------------------------------------------------------------------------------------


def _not_registered(problem: str) -> str:
    return f"the MCP server is not registered: {problem}. To have it, {MCP_FIX}"


def _show(
    changes: list[Labelled],
    notes: list[str],
    verb: str,
    dry_run: bool,
    as_json: bool,
    *,
    mcp_problem: str | None,
) -> None:
    (_, hooks), rest = changes[0], changes[1:]
    if as_json:
        data: dict[str, Any] = {**hooks.to_dict(), "dry_run": dry_run}
        data["notes"] = [*hooks.notes, *notes]
        data["other_files"] = [_file_dict(c) for _, c in rest]
        servers = [c for label, c in rest if label in (SERVER_IN, SERVER_OUT)]
        if servers or mcp_problem:
            data["mcp"] = _file_dict(servers[0]) if servers else {"changed": False}
            data["mcp"]["registered"] = bool(servers) and verb == "installed"
            if mcp_problem:
                data["mcp"]["reason"] = mcp_problem
                data["mcp"]["fix"] = MCP_FIX
        click.echo(json.dumps(data, indent=2))
        return
    for label, change in changes:
        _echo_change(label, change, dry_run)
    for note in notes:
        click.echo(f"note: {note}")


def _show_plugin(
    folder: Path, changes: list[Change], notes: list[str], dry_run: bool, as_json: bool
) -> None:
    changed = [c for c in changes if c.changed]
    if as_json:
        data = {
            "plugin": str(folder),
            "files": [str(c.path) for c in changed],
            "changes": [_file_dict(c) for c in changes],
            "notes": notes,
            "dry_run": dry_run,
        }
        click.echo(json.dumps(data, indent=2))
        return
    for change in changes:
        _echo_change(f"onlooker plugin {folder}:", change, dry_run)
    for note in notes:
        click.echo(f"note: {note}")


def _echo_change(label: str, change: Change, dry_run: bool) -> None:
    if dry_run:
        _echo_would(change)
        return
    if not change.changed:
        reason = "; ".join(change.notes) or "nothing to do"
        click.echo(f"Nothing to change in {change.path} ({reason}).")
        return
    if change.after is None:
        click.echo(f"{label} {change.path} (the file is removed)")
    else:
        what = f": {', '.join(change.events)}" if change.events else ""
        click.echo(f"{label} {change.path}{what}")
    if change.backup:
        click.echo(f"  backup: {change.backup}")
    for note in change.notes:
        click.echo(f"  {note}")


def _echo_would(change: Change) -> None:
    """A dry run's change: only the keys of a JSON file that would change, never the rest of it
    (~/.claude.json holds account ids); onlooker's own files by name."""
    if not change.changed:
        click.echo(f"Nothing to change in {change.path}.")
        return
    if change.after is None:
        click.echo(f"Would remove {change.path}")
        return
    keys = json_key_changes(change.before, change.after) if change.path.suffix == ".json" else None
    if keys is None:
        lines = change.after.count("\n")
        verb = "replace" if change.before is not None else "create"
        click.echo(f"Would {verb} {change.path} (onlooker's file, {lines} lines)")
        return
    click.echo(f"Would change {change.path}{'' if change.before else ' (a new file)'}:")
    for key in keys:
        click.echo(f"  {key.line()}")


def _file_dict(change: Change) -> dict[str, Any]:
    return {
        "config": str(change.path),
        "changed": change.changed,
        "backup": str(change.backup) if change.backup else None,
        "removed": change.after is None and change.before is not None,
        "notes": list(change.notes),
    }


uninstall_command.add_command(uninstall_opencode)
