"""Register `onlooker mcp` with Claude Code, when it can start: an `onlooker` entry in `mcpServers`.

project and local scope: `projects.<project path>.mcpServers` in the user config (`~/.claude.json`,
or `$CLAUDE_CONFIG_DIR/.claude.json`), since the entry names this machine's Python and the
project's `.mcp.json` is committed; user: its top-level `mcpServers`; a plugin: `.mcp.json` in the
plugin folder. Like the hooks install: backup first, idempotent, other servers and keys left
alone, uninstall removes exactly the entry it added.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ...errors import InstallError
from ..launcher import launcher_path, write_launcher
from .config_files import (
    Change,
    dumps,
    manifest,
    original_text,
    parse_object,
    put_back,
    read_text,
    save_manifest,
    write_changed,
)
from .paths import claude_user_config

SERVER_NAME = "onlooker"
#: The packages `onlooker mcp` needs: its SDK (the mcp extra), the command line, onlooker.
SERVER_PACKAGES = ("mcp", "click", "onlooker")
#: Finds them without importing them (milliseconds): what install checks.
FIND_PACKAGES = (
    "import importlib.util as u, sys; "
    f"missing = [m for m in {SERVER_PACKAGES!r} if u.find_spec(m) is None]; "
    "sys.exit('no module named ' + ', '.join(missing) if missing else 0)"
)
#: Imports what the server imports before its first tool call answers (seconds): what `onlooker
#: doctor` checks (its first answers come from the front alone, specs/mcp.md).
IMPORT_SERVER = "import mcp.server, onlooker.cli.mcp, onlooker.mcp.front, onlooker.mcp.server"


def mcp_server_entry(python: str | None = None, *, home: Path | None = None) -> dict[str, Any]:
    """The stdio server Claude Code starts: the data home's launcher (`home/bin/onlooker mcp`),
    which survives upgrades; without a home, `python` running `onlooker mcp`, isolated."""
    if home is not None:
        return {"type": "stdio", "command": str(launcher_path(home)), "args": ["mcp"], "env": {}}
    return {
        "type": "stdio",
        "command": python or sys.executable,
        "args": ["-I", "-m", "onlooker", "mcp"],
        "env": {},
    }


def server_start_problem(python: str | None = None, *, thorough: bool = False) -> str | None:
    """Why `onlooker mcp` cannot start with this Python (None: it can): the packages it needs
    are looked for, or with `thorough` imported as the server imports them."""
    python = python or sys.executable
    code = IMPORT_SERVER if thorough else FIND_PACKAGES
    try:
        done = subprocess.run(
            [python, "-I", "-c", code], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{python} cannot run ({exc})"
    if done.returncode == 0:
        return None
    last = (done.stderr.strip().splitlines() or ["no error output"])[-1]
    return f"{python} cannot import what the server needs: {last}"


def project_mcp_json(project: Path) -> Path:
    """The project's `.mcp.json`, where earlier versions registered the server at project scope."""
    return project / ".mcp.json"


def mcp_config_target(scope: str, project: Path) -> tuple[Path, tuple[str, ...]]:
    """The file that registers servers for `scope`, and the keys leading to its `mcpServers`."""
    if scope in ("project", "local"):
        return claude_user_config(), ("projects", str(project), "mcpServers")
    if scope == "user":
        return claude_user_config(), ("mcpServers",)
    raise InstallError(f"scope {scope!r} is not one of: project, local, user")


def is_onlooker_server(entry: Any) -> bool:
    """An `mcpServers` entry that runs `onlooker mcp` (any Python, any path)."""
    if not isinstance(entry, dict):
        return False
    words = [str(entry.get("command", "")), *(str(a) for a in entry.get("args", ()) or ())]
    return "mcp" in words[1:] and any("onlooker" in word for word in words)


def install_mcp(
    path: Path,
    keys: tuple[str, ...],
    home: Path,
    *,
    entry: dict[str, Any] | None = None,
    dry_run: bool = False,
) -> Change:
    """Add (or refresh) the `onlooker` server under `keys` in the JSON file at `path`."""
    if entry is None:
        write_launcher(home, dry_run=dry_run)
        entry = mcp_server_entry(home=home)
    before = read_text(path)
    data = parse_object(path, before)
    servers = _servers(path, data, keys, create=True)
    assert servers is not None
    current = servers.get(SERVER_NAME)
    if current is not None and not is_onlooker_server(current):
        where = ".".join((*keys, SERVER_NAME))
        raise InstallError(
            f"{path}: {where} is already taken by another server; rename or remove it first"
        )
    servers[SERVER_NAME] = entry
    after = dumps(data)
    changed = parse_object(path, after) != parse_object(path, before)
    backup = write_changed(path, before, after, home, changed=changed, dry_run=dry_run)
    return Change(path, before, after if changed else before, (SERVER_NAME,), backup, changed)


def uninstall_mcp(
    path: Path, keys: tuple[str, ...], home: Path, *, dry_run: bool = False
) -> Change:
    """Remove the `onlooker` server entry install added; put back containers it created."""
    before = read_text(path)
    if before is None:
        return Change(path, None, None, notes=("no config file: nothing to remove",))
    data = parse_object(path, before)
    servers = _servers(path, data, keys, create=False)
    if servers is None or not is_onlooker_server(servers.get(SERVER_NAME)):
        return Change(path, before, before, notes=("no onlooker MCP server found",))
    del servers[SERVER_NAME]
    recorded_all = manifest(home)
    recorded = recorded_all.get(str(path))
    text = original_text(recorded)
    original = parse_object(path, text) if text else {}
    _prune(data, original, keys)
    notes: list[str] = []
    known = isinstance(recorded, dict) and (text is not None or not recorded.get("existed"))
    if known and data == original:
        after = text  # nothing else changed: the original bytes (or no file) again
        notes.append("restored the file as it was before install")
    else:
        after = dumps(data)
    if not dry_run:
        put_back(path, after)
        if not _registered_anywhere(data):  # local and user scope share one file
            recorded_all.pop(str(path), None)
            save_manifest(home, recorded_all)
    return Change(path, before, after, (SERVER_NAME,), changed=True, notes=tuple(notes))


def installed_mcp(path: Path, keys: tuple[str, ...]) -> bool:
    """Whether the file at `path` registers onlooker's server under `keys`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return isinstance(data, dict) and is_onlooker_server(data.get(SERVER_NAME))


def _registered_anywhere(data: dict[str, Any]) -> bool:
    """Whether onlooker's server is still registered at user scope or for any project."""
    places: list[Any] = [data.get("mcpServers")]
    projects = data.get("projects")
    if isinstance(projects, dict):
        places += [p.get("mcpServers") for p in projects.values() if isinstance(p, dict)]
    return any(isinstance(p, dict) and is_onlooker_server(p.get(SERVER_NAME)) for p in places)


def _servers(
    path: Path, data: dict[str, Any], keys: tuple[str, ...], *, create: bool
) -> dict[str, Any] | None:
    """The object at `keys` in `data` (created on the way when `create`)."""
    current: Any = data
    for depth, key in enumerate(keys):
        found = current.get(key)
        if found is None and create:
            found = current[key] = {}
        if found is None:
            return None
        if not isinstance(found, dict):
            where = ".".join(keys[: depth + 1])
            raise InstallError(f"{path}: '{where}' must be an object, found {type(found).__name__}")
        current = found
    servers: dict[str, Any] = current
    return servers


def _prune(data: dict[str, Any], original: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Drop the objects along `keys` that install created and that are empty now."""
    for depth in range(len(keys), 0, -1):
        parent: Any = data
        before: Any = original
        for key in keys[: depth - 1]:
            parent = parent.get(key) if isinstance(parent, dict) else None
            before = before.get(key) if isinstance(before, dict) else None
        key = keys[depth - 1]
        if not isinstance(parent, dict) or parent.get(key) != {}:
            return
        if isinstance(before, dict) and key in before:
            return
        del parent[key]
