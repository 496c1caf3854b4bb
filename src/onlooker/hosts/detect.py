"""Which agent hosts this machine has: what `onlooker install` with no host installs into.

A host counts as present when its command is on PATH or its config folder exists: Claude Code
(`claude`, `$CLAUDE_CONFIG_DIR` or `~/.claude`, `~/.claude.json`), opencode (`opencode`,
`$XDG_CONFIG_HOME/opencode` or `~/.config/opencode`), Amplifier (`amplifier`, `~/.amplifier`, or
`amplifier_core` importable, which onlooker's hook module needs).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .claude_code.paths import claude_config_dir, claude_user_config

__all__ = ["HOSTS", "Detected", "detect_hosts"]

HOSTS = ("claude-code", "opencode", "amplifier")


@dataclass(frozen=True, slots=True)
class Detected:
    """A host found on this machine, and what gave it away."""

    host: str
    evidence: str


def detect_hosts() -> list[Detected]:
    found = []
    claude = _first(_on_path("claude"), _exists(claude_config_dir()), _exists(claude_user_config()))
    if claude:
        found.append(Detected("claude-code", claude))
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    config = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".config"
    opencode = _first(_on_path("opencode"), _exists(config / "opencode"))
    if opencode:
        found.append(Detected("opencode", opencode))
    amplifier = _first(
        _on_path("amplifier"),
        _exists(Path.home() / ".amplifier"),
        "amplifier_core is installed" if importlib.util.find_spec("amplifier_core") else "",
    )
    if amplifier:
        found.append(Detected("amplifier", amplifier))
    return found


def _first(*evidence: str) -> str:
    return next((e for e in evidence if e), "")


def _on_path(command: str) -> str:
    found = shutil.which(command)
    return f"{found} on PATH" if found else ""


def _exists(path: Path) -> str:
    return f"{path} exists" if path.exists() else ""
