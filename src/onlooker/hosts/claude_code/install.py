"""Wire onlooker into Claude Code's settings: its hooks merged into a settings file, or taken out.

Install backs the file up first (in the data home), is idempotent and leaves other hooks and keys
alone; uninstall removes exactly what install added, restoring the original bytes when nothing
else changed since. The hook command names the launcher in the data home (hosts/launcher.py), a
path of this machine, so it goes into a file that is not committed: `.claude/settings.local.json`
at project scope, never `.claude/settings.json`.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from ...errors import InstallError
from ..launcher import entry_file, launcher_path, write_launcher
from .config_files import (
    Change,
    dumps,
    forget,
    manifest,
    original_text,
    parse_object,
    put_back,
    read_text,
    write_changed,
)
from .hook_input import HOOK_EVENTS
from .paths import claude_config_dir

__all__ = [
    "SCOPES",
    "Change",
    "InstallError",
    "entry_file",
    "hook_command",
    "hooks_file",
    "install",
    "installed_hooks",
    "onlooker_commands",
    "settings_path",
    "uninstall",
]

SCOPES = ("project", "local", "user")
#: Seconds Claude Code lets one onlooker hook run (the hook itself gives up well before).
HOOK_TIMEOUT = 30
#: Events whose hooks take a tool-name matcher.
MATCHED_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure"})
MARKERS = (
    "onlooker/daemon/entry.py",
    "onlooker/hook/entry.py",
    "onlooker hook",
    '/scripts/onlooker" hook',
    "onlooker' hook",
)
#: Ends every hook command: whatever goes wrong (a Python that is gone, a moved entry file, whose
#: exit 2 Claude Code would take as a block), Claude Code sees exit 0. `onlooker doctor` tells.
FAIL_OPEN = " || true"


def hook_command(python: str | None = None, *, home: Path | None = None) -> str:
    """The command each hook runs, failing open: the data home's launcher (`home/bin/onlooker
    hook`), which survives upgrades; without a home, `python` isolated on the hook entry file."""
    if home is not None:
        return f"{shlex.quote(str(launcher_path(home)))} hook{FAIL_OPEN}"
    python = shlex.quote(python or sys.executable)
    return f"{python} -I -S {shlex.quote(str(entry_file()))}{FAIL_OPEN}"


def settings_path(scope: str, project: Path) -> Path:
    """The settings file of a scope: project `.claude/settings.json` (committed), local
    `.claude/settings.local.json`, user `~/.claude/settings.json`."""
    if scope == "user":
        return claude_config_dir() / "settings.json"
    if scope == "project":
        return project / ".claude" / "settings.json"
    if scope == "local":
        return project / ".claude" / "settings.local.json"
    raise InstallError(f"scope {scope!r} is not one of: {', '.join(SCOPES)}")


def hooks_file(scope: str, project: Path) -> Path:
    """Where install puts the hooks of a scope: the project's hooks go to the settings file that
    is not committed, since they name this machine's Python."""
    return settings_path("local" if scope == "project" else scope, project)


def onlooker_hooks(command: str) -> dict[str, list[dict[str, Any]]]:
    """The `hooks` object onlooker installs: one command hook per handled event."""
    hooks: dict[str, list[dict[str, Any]]] = {}
    for event in HOOK_EVENTS:
        group: dict[str, Any] = {"matcher": "*"} if event in MATCHED_EVENTS else {}
        group["hooks"] = [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]
        hooks[event] = [group]
    return hooks


def is_onlooker_hook(hook: Any) -> bool:
    command = hook.get("command") if isinstance(hook, dict) else None
    return isinstance(command, str) and any(marker in command for marker in MARKERS)


def install(path: Path, home: Path, *, command: str | None = None, dry_run: bool = False) -> Change:
    """Merge onlooker's hooks into the settings file at `path` (by default running the data
    home's launcher, written or refreshed here)."""
    if command is None:
        write_launcher(home, dry_run=dry_run)
        command = hook_command(home=home)
    before = read_text(path)
    data = parse_object(path, before)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: 'hooks' must be an object, found {type(hooks).__name__}")
    _remove_onlooker(hooks)  # an older onlooker command (moved venv) is replaced, not doubled
    added = []
    for event, groups in onlooker_hooks(command).items():
        current = hooks.setdefault(event, [])
        if not isinstance(current, list):
            raise InstallError(
                f"{path}: 'hooks.{event}' must be a list, found {type(current).__name__}"
            )
        current.extend(groups)
        added.append(event)
    after = dumps(data)
    changed = after != before
    backup = write_changed(path, before, after, home, changed=changed, dry_run=dry_run)
    return Change(path, before, after, tuple(added), backup, changed)


def uninstall(path: Path, home: Path, *, dry_run: bool = False) -> Change:
    """Remove exactly what `install` added to the settings file at `path`."""
    before = read_text(path)
    if before is None:
        return Change(path, None, None, notes=("no settings file: nothing to remove",))
    data = parse_object(path, before)
    hooks = data.get("hooks")
    removed = _remove_onlooker(hooks) if isinstance(hooks, dict) else ()
    if not removed:
        return Change(path, before, before, notes=("no onlooker hooks found",))
    recorded = manifest(home).get(str(path))
    original = original_text(recorded)
    notes: list[str] = []
    if recorded is not None and _same(_pruned(data, original), original):
        after = original  # nothing else changed: put the file back byte for byte
        notes.append("restored the file as it was before install")
    else:
        after = dumps(_pruned(data, original))
    if not dry_run:
        put_back(path, after)
        forget(home, path)
    return Change(path, before, after, tuple(removed), changed=True, notes=tuple(notes))


def installed_hooks(path: Path) -> list[str]:
    """Events under which the settings (or plugin hooks) file at `path` runs an onlooker hook."""
    found = onlooker_commands(path).values()
    return list(dict.fromkeys(event for events in found for event in events))


def onlooker_commands(path: Path) -> dict[str, list[str]]:
    """Each onlooker hook command the file at `path` runs, with the events that run it."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    found: dict[str, list[str]] = {}
    for event, groups in hooks.items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            inner = group.get("hooks", ()) if isinstance(group, dict) else ()
            for hook in inner if isinstance(inner, list) else ():
                if is_onlooker_hook(hook) and event not in found.setdefault(hook["command"], []):
                    found[hook["command"]].append(event)
    return found


# -- internals ------------------------------------------------------------------------------------


def _remove_onlooker(hooks: dict[str, Any]) -> tuple[str, ...]:
    """Drop onlooker's hook entries (and groups left empty by that); the events touched."""
    touched = []
    for event, groups in list(hooks.items()):
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(is_onlooker_hook(h) for h in inner):
                kept.append(group)
                continue
            rest = [h for h in inner if not is_onlooker_hook(h)]
            if rest:
                kept.append({**group, "hooks": rest})
        if len(kept) != len(groups) or kept != groups:
            touched.append(event)
            hooks[event] = kept
    return tuple(touched)


def _pruned(data: dict[str, Any], original_text: str | None) -> dict[str, Any]:
    """`data` without the empty containers install created (those absent from the original)."""
    original = json.loads(original_text) if original_text else {}
    old_hooks = original.get("hooks") if isinstance(original, dict) else None
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        for event in [e for e, groups in hooks.items() if groups == []]:
            if not isinstance(old_hooks, dict) or event not in old_hooks:
                del hooks[event]
        if not hooks and not (isinstance(original, dict) and "hooks" in original):
            del data["hooks"]
    return data


def _same(data: dict[str, Any], original_text: str | None) -> bool:
    if original_text is None:
        return data == {}
    try:
        return bool(data == json.loads(original_text))
    except ValueError:
        return False
