"""onlooker in a Claude Code plugin folder: a plugin of its own or merged into one, and out again.

The folder gets `scripts/onlooker` (a launcher naming this machine's Python), onlooker's hooks in
`hooks/hooks.json`, its MCP server in `.mcp.json` and the observer's slash commands in
`commands/` (`/onlooker:status` …), the `observations` skill in `skills/observations/SKILL.md`
(how to act on a finding by its id), all through `${CLAUDE_PLUGIN_ROOT}`, and a
`.claude-plugin/plugin.json` only when it has none. What is there already is merged into with a
backup, never replaced; a folder that is not a plugin, or a launcher or server name that is
someone else's, is refused. Uninstall takes out exactly that and removes what install created.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from ...errors import InstallError
from .config_files import (
    Change,
    manifest,
    read_text,
    save_manifest,
    write_text,
)
from .install import entry_file, install, uninstall
from .mcp_registration import SERVER_NAME, install_mcp, uninstall_mcp
from .skill import OBSERVATIONS_SKILL, Skill
from .slash_commands import COMMANDS, SlashCommand, is_ours

MANIFEST_FILE = Path(".claude-plugin") / "plugin.json"
HOOKS_FILE = Path("hooks") / "hooks.json"
MCP_FILE = Path(".mcp.json")
LAUNCHER = Path("scripts") / "onlooker"
LAUNCHER_MARK = "# onlooker plugin launcher"
#: What the plugin's hooks and MCP server run: the launcher, found through Claude Code's variable.
HOOK_COMMAND = '"${CLAUDE_PLUGIN_ROOT}/scripts/onlooker" hook'
PLUGIN_KEY = "plugin:"


def launcher_text(python: str | None = None) -> str:
    """The launcher: the hook client (failing open, as every onlooker hook), the MCP server, or an
    observer command (the slash commands')."""
    python = shlex.quote(python or sys.executable)
    entry = shlex.quote(str(entry_file()))
    return f"""#!/bin/sh
{LAUNCHER_MARK}, written by `onlooker install claude-code --plugin`.
# It names this machine's Python; on another machine, run that command again there.
python={python}
entry={entry}
case "$1" in
  hook) "$python" -I -S "$entry"; exit 0 ;;
  mcp) exec "$python" -I -m onlooker mcp ;;
  observer) shift; exec "$python" -I -m onlooker observer "$@" ;;
  observer-typed)
    # NAME, with the words typed after the slash command on stdin: split on blanks, never
    # expanded or globbed; Claude Code's escaped "\\!" back to "!". Errors go to the output.
    name=$2; set -f; set -- $(sed 's/\\\\!/!/g')
    "$python" -I -m onlooker observer "$name" -- "$@" 2>&1; exit 0 ;;
  *) echo "usage: $0 hook|mcp|observer|observer-typed ..." >&2; exit 0 ;;
esac
"""


TEXTS: tuple[SlashCommand | Skill, ...] = (*COMMANDS, OBSERVATIONS_SKILL)
"""The plugin's Markdown files onlooker writes: the slash commands and the observations skill."""


def mcp_entry() -> dict[str, Any]:
    return {"type": "stdio", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/onlooker", "args": ["mcp"]}


def install_plugin(
    folder: Path, home: Path, *, mcp: bool = True, dry_run: bool = False
) -> list[Change]:
    """Put onlooker into the plugin folder (created when missing); what changed, file by file."""
    folder = folder.absolute()
    _check_plugin_folder(folder)
    launcher = folder / LAUNCHER
    current = read_text(launcher)
    if current is not None and LAUNCHER_MARK not in current:
        raise InstallError(f"{launcher} is someone else's file; onlooker's launcher goes there")
    servers = folder / MCP_FILE
    for slash in TEXTS:
        existing = read_text(folder / slash.path)
        if existing is not None and not is_ours(existing):
            raise InstallError(f"{folder / slash.path} is someone else's command; onlooker's "
                               f"/onlooker:{slash.name} goes there")  # fmt: skip
    # Refused before anything is written: a hooks or servers file onlooker may not change.
    install(folder / HOOKS_FILE, home, command=HOOK_COMMAND, dry_run=True)
    if mcp:
        install_mcp(servers, ("mcpServers",), home, entry=mcp_entry(), dry_run=True)
    slash_files = [slash.path for slash in TEXTS]
    created = _missing(
        folder, [MANIFEST_FILE, HOOKS_FILE, LAUNCHER, *slash_files, *([MCP_FILE] if mcp else [])]
    )
    changes = []
    if not (folder / MANIFEST_FILE).exists():
        changes.append(_write_new(folder / MANIFEST_FILE, _plugin_json(), dry_run))
    text = launcher_text()
    changes.append(
        Change(launcher, current, text, changed=current != text)
        if dry_run or current == text
        else _write_launcher(launcher, current, text)
    )
    changes.append(install(folder / HOOKS_FILE, home, command=HOOK_COMMAND, dry_run=dry_run))
    changes += [_write_command(folder / slash.path, slash.text(), dry_run) for slash in TEXTS]
    if mcp:
        entry = mcp_entry()
        changes.append(install_mcp(servers, ("mcpServers",), home, entry=entry, dry_run=dry_run))
    if not dry_run:
        _record(home, folder, created)
    return changes


def uninstall_plugin(folder: Path, home: Path, *, dry_run: bool = False) -> list[Change]:
    """Take onlooker out of the plugin folder; remove the files and folders install created."""
    folder = folder.absolute()
    recorded = manifest(home).get(PLUGIN_KEY + str(folder))
    created = [Path(p) for p in recorded.get("created", [])] if isinstance(recorded, dict) else []
    changes = [
        uninstall(folder / HOOKS_FILE, home, dry_run=dry_run),
        uninstall_mcp(folder / MCP_FILE, ("mcpServers",), home, dry_run=dry_run),
    ]
    launcher = folder / LAUNCHER
    current = read_text(launcher)
    if current is not None and LAUNCHER_MARK in current:
        if not dry_run:
            launcher.unlink()
        changes.append(Change(launcher, current, None, changed=True))
    for slash in TEXTS:
        text = read_text(folder / slash.path)
        if is_ours(text):
            if not dry_run:
                (folder / slash.path).unlink()
            changes.append(Change(folder / slash.path, text, None, changed=True))
    plugin_json = folder / MANIFEST_FILE
    if MANIFEST_FILE in created and read_text(plugin_json) == _plugin_json():
        if not dry_run:
            plugin_json.unlink()
        changes.append(Change(plugin_json, _plugin_json(), None, changed=True))
    if not dry_run:
        _remove_empty_folders(folder, created)
        record = manifest(home)
        if record.pop(PLUGIN_KEY + str(folder), None) is not None:
            save_manifest(home, record)
    return changes


def installed_plugins(home: Path) -> list[Path]:
    """The plugin folders onlooker was installed into (from the install manifest)."""
    return [Path(key[len(PLUGIN_KEY) :]) for key in manifest(home) if key.startswith(PLUGIN_KEY)]


# -- internals ------------------------------------------------------------------------------------


def _check_plugin_folder(folder: Path) -> None:
    """A new or empty folder, or a plugin (it has `.claude-plugin/plugin.json` holding JSON)."""
    if folder.exists() and not folder.is_dir():
        raise InstallError(f"{folder} is a file, not a plugin folder")
    plugin_json = folder / MANIFEST_FILE
    if plugin_json.exists():
        try:
            json.loads(plugin_json.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InstallError(
                f"{plugin_json} cannot be read as JSON ({exc}); fix it first"
            ) from None
        return
    if folder.is_dir() and any(folder.iterdir()):
        raise InstallError(
            f"{folder} is not empty and has no {MANIFEST_FILE}, so it is no plugin: onlooker "
            "leaves it alone. Name a new or empty folder, or a plugin's folder."
        )


def _plugin_json() -> str:
    data = {
        "name": "onlooker",
        "description": "Observers for the agent: loops, error cascades, drift and deadlines, "
        "fed back into its context after each tool call.",
    }
    return json.dumps(data, indent=2) + "\n"


def _missing(folder: Path, files: list[Path]) -> list[Path]:
    """The folder, its subfolders and the files of `files` that do not exist yet (relative)."""
    missing: list[Path] = [] if folder.exists() else [Path(".")]
    for relative in files:
        for part in (*reversed(relative.parents[:-1]), relative):
            if not (folder / part).exists() and part not in missing:
                missing.append(part)
    return missing


def _write_new(path: Path, text: str, dry_run: bool) -> Change:
    if not dry_run:
        write_text(path, text)
    return Change(path, None, text, changed=True)


def _write_command(path: Path, text: str, dry_run: bool) -> Change:
    current = read_text(path)
    if current != text and not dry_run:
        write_text(path, text)
    return Change(path, current, text, changed=current != text)


def _write_launcher(path: Path, before: str | None, text: str) -> Change:
    write_text(path, text, mode=0o755)
    return Change(path, before, text, changed=True)


def _record(home: Path, folder: Path, created: list[Path]) -> None:
    record = manifest(home)
    key = PLUGIN_KEY + str(folder)
    entry = record.get(key)
    known = entry.get("created", []) if isinstance(entry, dict) else []
    record[key] = {"created": sorted({*known, *(str(p) for p in created)})}
    save_manifest(home, record)


def _remove_empty_folders(folder: Path, created: list[Path]) -> None:
    """Remove the folders install created, deepest first, when nothing else is in them."""
    for relative in sorted(created, key=lambda p: len(p.parts), reverse=True):
        path = folder / relative
        if path.is_dir() and not any(path.iterdir()):
            path.rmdir()


__all__ = ["HOOK_COMMAND", "SERVER_NAME", "install_plugin", "installed_plugins", "uninstall_plugin"]
