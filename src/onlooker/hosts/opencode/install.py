"""Put onlooker's plugin into opencode's plugin folder, or take it out.

The plugin is one file, `onlooker.ts`, written from `plugin/onlooker.ts` with the observer tools'
names, descriptions and arguments filled in; it names no path of this machine (it finds onlooker at
run time: the data home's launcher, which install writes, or `onlooker` on PATH), so a project can
commit it. It goes into
`.opencode/plugins/` of the project (project scope) or `~/.config/opencode/plugins/` (user
scope; `$XDG_CONFIG_HOME/opencode/plugins/` when set).
Install is idempotent and backs up a file it replaces; uninstall removes exactly that file,
putting back what was there before. A file of that name that is not onlooker's is never touched.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ...errors import InstallError
from ..claude_code.config_files import (
    Change,
    forget,
    manifest,
    original_text,
    put_back,
    read_text,
    write_changed,
)
from ..launcher import write_launcher

__all__ = ["PLUGIN_FILE", "SCOPES", "install", "plugin_path", "plugin_text", "uninstall"]

SCOPES = ("project", "user")
PLUGIN_FILE = "onlooker.ts"
SOURCE = Path(__file__).with_name("plugin") / PLUGIN_FILE
SETTINGS_LINE = 'const SETTINGS = { python: "", client: "" } // onlooker:settings'
"""The shim's line install fills in; what marks a plugin file as onlooker's."""
MARK = "// onlooker:settings"
TOOLS_LINE = "const OBSERVER_TOOLS: ObserverTool[] = [] // onlooker:observer-tools"
"""The shim's line that gets the observer tools (the MCP server's, specs/scoring.md)."""


def plugin_path(scope: str, project: Path) -> Path:
    """Where the plugin file of a scope goes."""
    if scope == "project":
        return project / ".opencode" / "plugins" / PLUGIN_FILE
    if scope == "user":
        xdg = os.environ.get("XDG_CONFIG_HOME", "")
        config = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".config"
        return config / "opencode" / "plugins" / PLUGIN_FILE
    raise InstallError(f"scope {scope!r} is not one of: {', '.join(SCOPES)}")


def plugin_text() -> str:
    """The plugin file: the shim with the observer tools filled in (its settings line stays empty:
    onlooker is found at run time)."""
    source = SOURCE.read_text(encoding="utf-8")
    if SETTINGS_LINE not in source or TOOLS_LINE not in source:
        raise InstallError(f"{SOURCE} has no settings line; the package is damaged")
    from .observer import tool_specs

    tools = json.dumps(tool_specs(), ensure_ascii=False)
    return source.replace(TOOLS_LINE, TOOLS_LINE.replace("= []", f"= {tools}", 1))


def install(path: Path, home: Path, *, dry_run: bool = False) -> Change:
    """Write the plugin file at `path` (a file of onlooker's there is replaced), and the data
    home's launcher that it runs."""
    before = read_text(path)
    if before is not None and MARK not in before:
        raise InstallError(f"{path} exists and is not onlooker's plugin; move it, then install")
    write_launcher(home, dry_run=dry_run)
    after = plugin_text()
    changed = after != before
    backup = write_changed(path, before, after, home, changed=changed, dry_run=dry_run)
    return Change(path, before, after, ("opencode plugin",), backup, changed)


def uninstall(path: Path, home: Path, *, dry_run: bool = False) -> Change:
    """Remove the plugin file at `path`, putting back the file it replaced if there was one."""
    before = read_text(path)
    if before is None:
        return Change(path, None, None, notes=("no onlooker plugin there",))
    if MARK not in before:
        return Change(path, before, before, notes=("the file there is not onlooker's: kept",))
    original = original_text(manifest(home).get(str(path)))
    notes = ("restored the file as it was before install",) if original is not None else ()
    if not dry_run:
        put_back(path, original)
        forget(home, path)
    return Change(path, before, original, ("opencode plugin",), changed=True, notes=notes)
