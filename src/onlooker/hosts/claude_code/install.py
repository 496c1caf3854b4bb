"""Wire onlooker into Claude Code: merge its hooks into a settings.json, or write a plugin folder.

Install backs the file up first (in the data home), is idempotent and leaves other hooks and keys
alone; uninstall removes exactly what install added, restoring the original bytes when nothing
else changed since.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .hook_input import HOOK_EVENTS
from .paths import claude_config_dir

SCOPES = ("project", "local", "user")
#: Seconds Claude Code lets one onlooker hook run (the hook itself gives up well before).
HOOK_TIMEOUT = 30
#: Events whose hooks take a tool-name matcher.
MATCHED_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure"})
MARKERS = ("onlooker/daemon/entry.py", "onlooker/hook/entry.py", "onlooker hook")
MANIFEST = "claude-code-installs.json"


class InstallError(Exception):
    """The settings file cannot be read or written; the message names the file."""


def hook_command(python: str | None = None) -> str:
    """The command each hook runs: this Python, isolated, on the hook entry file."""
    entry = Path(__file__).resolve().parents[2] / "daemon" / "entry.py"
    return f"{shlex.quote(python or sys.executable)} -I -S {shlex.quote(str(entry))}"


def settings_path(scope: str, project: Path) -> Path:
    if scope == "user":
        return claude_config_dir() / "settings.json"
    if scope == "project":
        return project / ".claude" / "settings.json"
    if scope == "local":
        return project / ".claude" / "settings.local.json"
    raise InstallError(f"scope {scope!r} is not one of: {', '.join(SCOPES)}")


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


@dataclass(frozen=True, slots=True)
class Change:
    """What an install or uninstall did (or would do, on a dry run)."""

    path: Path
    before: str | None
    after: str | None
    events: tuple[str, ...] = ()
    backup: Path | None = None
    changed: bool = False
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "settings": str(self.path),
            "changed": self.changed,
            "events": list(self.events),
            "backup": str(self.backup) if self.backup else None,
            "notes": list(self.notes),
        }


def install(path: Path, home: Path, *, command: str | None = None, dry_run: bool = False) -> Change:
    """Merge onlooker's hooks into the settings file at `path`."""
    command = command or hook_command()
    before = _read(path)
    data = _parse(path, before)
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
    after = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    changed = after != before
    backup = None
    if changed and not dry_run:
        backup = _remember_original(path, before, home)
        _write(path, after)
    return Change(path, before, after, tuple(added), backup, changed)


def uninstall(path: Path, home: Path, *, dry_run: bool = False) -> Change:
    """Remove exactly what `install` added to the settings file at `path`."""
    before = _read(path)
    if before is None:
        return Change(path, None, None, notes=("no settings file: nothing to remove",))
    data = _parse(path, before)
    hooks = data.get("hooks")
    removed = _remove_onlooker(hooks) if isinstance(hooks, dict) else ()
    if not removed:
        return Change(path, before, before, notes=("no onlooker hooks found",))
    manifest = _manifest(home)
    original = manifest.get(str(path))
    original_text = _original_text(original)
    notes: list[str] = []
    if original is not None and _same(_pruned(data, original_text), original_text):
        after = original_text  # nothing else changed: put the file back byte for byte
        notes.append("restored the file as it was before install")
    else:
        after = json.dumps(_pruned(data, original_text), indent=2, ensure_ascii=False) + "\n"
    if not dry_run:
        if after is None:
            path.unlink()
        else:
            _write(path, after)
        manifest.pop(str(path), None)
        _save_manifest(home, manifest)
    return Change(path, before, after, tuple(removed), changed=True, notes=tuple(notes))


def write_plugin(folder: Path, *, command: str | None = None, version: str = "0.1.0") -> list[Path]:
    """A Claude Code plugin folder: `.claude-plugin/plugin.json` and `hooks/hooks.json`."""
    command = command or hook_command()
    manifest = {
        "name": "onlooker",
        "version": version,
        "description": "Observers for the agent: loops, error cascades, drift and deadlines, "
        "fed back into its context after each tool call.",
    }
    hooks = {"description": "onlooker observers", "hooks": onlooker_hooks(command)}
    written = []
    for relative, content in (
        (".claude-plugin/plugin.json", manifest),
        ("hooks/hooks.json", hooks),
    ):
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        _write(target, json.dumps(content, indent=2) + "\n")
        written.append(target)
    return written


def installed_hooks(path: Path) -> list[str]:
    """Events under which the settings file at `path` runs an onlooker hook."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return []
    return [
        event
        for event, groups in hooks.items()
        if isinstance(groups, list)
        and any(
            is_onlooker_hook(hook)
            for group in groups
            if isinstance(group, dict)
            for hook in group.get("hooks", ())
        )
    ]


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


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstallError(f"cannot read {path}: {exc}") from None


def _parse(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InstallError(
            f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}); fix it, then install again"
        ) from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} must hold a JSON object, found {type(data).__name__}")
    return data


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.onlooker-{time.time_ns()}")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def _manifest(home: Path) -> dict[str, Any]:
    try:
        data = json.loads((home / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_manifest(home: Path, manifest: dict[str, Any]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    _write(home / MANIFEST, json.dumps(manifest, indent=2) + "\n")


def _remember_original(path: Path, before: str | None, home: Path) -> Path | None:
    """Back the file up in the data home; the first install's original is kept for uninstall."""
    backup = None
    if before is not None:
        folder = home / "backups" / "claude-code"
        folder.mkdir(parents=True, exist_ok=True)
        backup = folder / f"{path.parent.parent.name or 'home'}-{path.name}.{time.time_ns()}.bak"
        backup.write_text(before, encoding="utf-8")
    manifest = _manifest(home)
    if str(path) not in manifest:
        manifest[str(path)] = {
            "backup": str(backup) if backup else None,
            "existed": before is not None,
        }
        _save_manifest(home, manifest)
    return backup


def _original_text(entry: Any) -> str | None:
    if not isinstance(entry, dict) or not entry.get("existed"):
        return None
    try:
        return Path(str(entry["backup"])).read_text(encoding="utf-8")
    except (OSError, KeyError):
        return None
