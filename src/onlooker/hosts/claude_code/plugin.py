"""onlooker in a Claude Code plugin folder: a plugin of its own or merged into one, and out again.

The folder gets `scripts/onlooker` (the finder of hosts/launcher.py: it finds the installed
onlooker at run time and names no path of this machine), onlooker's hooks in `hooks/hooks.json`
and its MCP server in `.mcp.json`, all through `${CLAUDE_PLUGIN_ROOT}`. onlooker's own plugin (a
new folder, or one whose plugin.json names `onlooker`) also gets the observer's slash commands in
`commands/` (`/onlooker:status` …), the skill that tells the agent how to act on observations
(`skills/onlooker-observations/SKILL.md`) and a `.claude-plugin/plugin.json`; someone else's
plugin gets only the hooks and the server. What is there already is merged into with a backup,
never replaced; a folder that is not a plugin, or a launcher or server name that is someone
else's, is refused. Uninstall takes out exactly that and removes what install created.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...errors import InstallError
from ..launcher import FINDER_MARK, FINDER_TEXT, write_launcher
from .config_files import (
    Change,
    manifest,
    read_text,
    save_manifest,
    write_text,
)
from .install import install, uninstall
from .mcp_registration import SERVER_NAME, install_mcp, uninstall_mcp
from .skill import PATH as SKILL_FILE
from .skill import is_ours as is_our_skill
from .skill import skill_text
from .slash_commands import COMMANDS, is_ours

MANIFEST_FILE = Path(".claude-plugin") / "plugin.json"
HOOKS_FILE = Path("hooks") / "hooks.json"
MCP_FILE = Path(".mcp.json")
LAUNCHER = Path("scripts") / "onlooker"
LAUNCHER_MARK = "# onlooker plugin launcher"
"""What marked the launcher of earlier versions (it named this machine's Python)."""
#: What the plugin's hooks and MCP server run: the launcher, found through Claude Code's variable.
HOOK_COMMAND = '"${CLAUDE_PLUGIN_ROOT}/scripts/onlooker" hook'
PLUGIN_KEY = "plugin:"


def launcher_text() -> str:
    """The plugin's `scripts/onlooker`: hook, mcp, observer, observer-typed (the slash commands'),
    run by whichever onlooker is installed."""
    return FINDER_TEXT


def is_our_launcher(text: str | None) -> bool:
    return text is not None and (LAUNCHER_MARK in text or FINDER_MARK in text)


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
    if current is not None and not is_our_launcher(current):
        raise InstallError(f"{launcher} is someone else's file; onlooker's launcher goes there")
    servers = folder / MCP_FILE
    own = _is_own_plugin(folder)
    slashes = COMMANDS if own else ()
    for slash in slashes:
        existing = read_text(folder / slash.path)
        if existing is not None and not is_ours(existing):
            raise InstallError(f"{folder / slash.path} is someone else's command; onlooker's "
                               f"/onlooker:{slash.name} goes there")  # fmt: skip
    skill = read_text(folder / SKILL_FILE)
    if own and skill is not None and not is_our_skill(skill):
        raise InstallError(f"{folder / SKILL_FILE} is someone else's skill; onlooker's goes there")
    # Refused before anything is written: a hooks or servers file onlooker may not change.
    install(folder / HOOKS_FILE, home, command=HOOK_COMMAND, dry_run=True)
    if mcp:
        install_mcp(servers, ("mcpServers",), home, entry=mcp_entry(), dry_run=True)
    own_files = [*(slash.path for slash in slashes), *([SKILL_FILE] if own else [])]
    created = _missing(
        folder, [MANIFEST_FILE, HOOKS_FILE, LAUNCHER, *own_files, *([MCP_FILE] if mcp else [])]
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
    changes += [_write_command(folder / slash.path, slash.text(), dry_run) for slash in slashes]
    if own:
        changes.append(_write_command(folder / SKILL_FILE, skill_text(), dry_run))
    if mcp:
        entry = mcp_entry()
        changes.append(install_mcp(servers, ("mcpServers",), home, entry=entry, dry_run=dry_run))
    if not dry_run:
        write_launcher(home)  # what the plugin's finder runs on this machine
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
    if is_our_launcher(current):
        if not dry_run:
            launcher.unlink()
        changes.append(Change(launcher, current, None, changed=True))
    for slash in COMMANDS:
        text = read_text(folder / slash.path)
        if is_ours(text):
            if not dry_run:
                (folder / slash.path).unlink()
            changes.append(Change(folder / slash.path, text, None, changed=True))
    skill = read_text(folder / SKILL_FILE)
    if is_our_skill(skill):
        if not dry_run:
            (folder / SKILL_FILE).unlink()
        changes.append(Change(folder / SKILL_FILE, skill, None, changed=True))
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


def _is_own_plugin(folder: Path) -> bool:
    """A new folder, or a plugin named `onlooker`: onlooker's own, which gets its commands too."""
    try:
        data = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    except OSError:
        return True
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("name") == "onlooker"


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
