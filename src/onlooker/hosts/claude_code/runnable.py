"""Whether what install wrote can run on this machine: every onlooker hook command Claude Code would
run (settings of each scope, plugin folders) and every registered `onlooker mcp` server.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...store.home import data_home
from ..launcher import FINDER_MARK, INSTALL_HINT, LAUNCHER_MARK, launcher_path
from .install import FAIL_OPEN, onlooker_commands, settings_path
from .mcp_registration import (
    SERVER_NAME,
    is_onlooker_server,
    project_mcp_json,
    server_start_problem,
)
from .paths import claude_user_config
from .plugin import HOOKS_FILE, MCP_FILE, installed_plugins
from .plugin import LAUNCHER_MARK as PLUGIN_LAUNCHER_MARK

PLUGIN_ROOT = "${CLAUDE_PLUGIN_ROOT}"
_LAUNCHER_VALUE = re.compile(r"^(python|entry)=(.*)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Problem:
    """Something install wrote that cannot run: where it is, what it runs, and why not."""

    file: Path
    what: str
    """The hook command, or `mcpServers.onlooker`."""
    problem: str
    events: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": str(self.file),
            "what": self.what,
            "events": list(self.events),
            "problem": self.problem,
        }


def installed_problems(project: Path, home: Path) -> list[Problem]:
    """Every onlooker hook command and MCP server registered for `project` that cannot run."""
    problems = []
    hook_files: list[tuple[Path, Path | None]] = [
        (settings_path(scope, project), None) for scope in ("project", "local", "user")
    ]
    plugins = installed_plugins(home)
    hook_files += [(folder / HOOKS_FILE, folder) for folder in plugins]
    for path, root in hook_files:
        for command, events in onlooker_commands(path).items():
            problem = hook_command_problem(command, root)
            if problem:
                problems.append(Problem(path, command, problem, tuple(events)))
    servers = [
        (claude_user_config(), ("mcpServers",), None),
        (claude_user_config(), ("projects", str(project), "mcpServers"), None),
        (project_mcp_json(project), ("mcpServers",), None),
        *((folder / MCP_FILE, ("mcpServers",), folder) for folder in plugins),
    ]
    for path, keys, root in servers:
        entry = _registered(path, keys)
        problem = mcp_entry_problem(entry, root) if entry is not None else None
        if problem:
            problems.append(Problem(path, ".".join((*keys, SERVER_NAME)), problem))
    return problems


def hook_command_problem(command: str, plugin_root: Path | None = None) -> str | None:
    """Why an onlooker hook command cannot run here (None when it can)."""
    argv = _argv(command.removesuffix(FAIL_OPEN), plugin_root)
    if isinstance(argv, str):
        return argv
    program = _program(argv[0])
    if isinstance(program, str):
        return program
    program = _found(program)
    if isinstance(program, str):
        return program
    launcher = _launcher(program)
    if launcher is not None:
        python, scripts = launcher.get("python", ""), [launcher.get("entry", "")]
        if not (Path(python).is_file() and Path(scripts[0]).is_file()):
            return _launcher_gone(python)
    elif argv[1:] == ["hook"]:  # `onlooker hook`: a console script, its Python is its own
        return None
    else:
        python, scripts = str(program), [a for a in argv[1:] if a.endswith(".py")]
    for script in scripts:
        if not Path(script).is_file():
            return f"{script} does not exist (onlooker moved or was removed; install again)"
    return _python_problem(python)


def mcp_entry_problem(entry: dict[str, Any], plugin_root: Path | None = None) -> str | None:
    """Why a registered `onlooker mcp` server cannot start here (None when it can)."""
    command = str(entry.get("command", ""))
    if PLUGIN_ROOT in command:
        if plugin_root is None:
            return f"it names {PLUGIN_ROOT}, which only a plugin has"
        command = command.replace(PLUGIN_ROOT, str(plugin_root))
    program = _program(command)
    if isinstance(program, str):
        return program
    program = _found(program)
    if isinstance(program, str):
        return program
    launcher = _launcher(program)
    if launcher is not None:
        python = launcher.get("python", "")
        return _server_problem(python) if Path(python).is_file() else _launcher_gone(python)
    if "python" in program.name:
        return _server_problem(str(program))
    return None  # a console script: nothing more to check without starting it


# -- internals ------------------------------------------------------------------------------------


def _argv(command: str, plugin_root: Path | None) -> list[str] | str:
    if plugin_root is not None:
        command = command.replace(PLUGIN_ROOT, str(plugin_root))
    elif PLUGIN_ROOT in command:
        return f"it names {PLUGIN_ROOT}, which only a plugin has"
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return f"the command cannot be parsed ({exc})"
    return argv or "the command is empty"


def _program(name: str) -> Path | str:
    found = name if "/" in name else shutil.which(name)
    if found is None:
        return f"{name} is not on PATH"
    path = Path(found)
    if not path.is_file():
        return f"{path} does not exist (its virtualenv moved or was removed; install again)"
    if not os.access(path, os.X_OK):
        return f"{path} is not executable"
    return path


def _head(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return ""


def _found(path: Path) -> Path | str:
    """What a plugin's finder script runs here (the data home's launcher, or the `onlooker` on
    PATH); any other program as it is."""
    if FINDER_MARK not in _head(path):
        return path
    chosen = os.environ.get("ONLOOKER_BIN", "")
    for candidate in (chosen, str(launcher_path(data_home())), shutil.which("onlooker") or ""):
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    return f"no onlooker is installed on this machine: {INSTALL_HINT}"


def _launcher_gone(python: str) -> str | None:
    """The launcher's onlooker is gone: fine while an `onlooker` on PATH takes over."""
    if shutil.which("onlooker"):
        return None
    return f"{python}, which the launcher names, is gone and no onlooker is on PATH: {INSTALL_HINT}"


def _launcher(path: Path) -> dict[str, str] | None:
    """The python and entry a launcher names, if `path` is one."""
    text = _head(path)
    if LAUNCHER_MARK not in text and PLUGIN_LAUNCHER_MARK not in text:
        return None
    values = {}
    for key, value in _LAUNCHER_VALUE.findall(text):
        parts = shlex.split(value)
        values[key] = parts[0] if parts else ""
    return values


@functools.lru_cache(maxsize=16)
def _python_problem(python: str) -> str | None:
    """Why `python` cannot start the hook service (it needs onlooker importable)."""
    if not (Path(python).is_file() and os.access(python, os.X_OK)):
        return f"{python} does not exist (its virtualenv moved or was removed; install again)"
    try:
        done = subprocess.run(
            [python, "-I", "-c", "import onlooker.daemon.hookd"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{python} cannot run ({exc})"
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no error output"])[-1]
        return f"{python} cannot import onlooker ({last}); install onlooker there, or again"
    return None


@functools.lru_cache(maxsize=16)
def _server_problem(python: str) -> str | None:
    if not (Path(python).is_file() and os.access(python, os.X_OK)):
        return f"{python} does not exist (its virtualenv moved or was removed; install again)"
    return server_start_problem(python, thorough=True)


def _registered(path: Path, keys: tuple[str, ...]) -> dict[str, Any] | None:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    entry = data.get(SERVER_NAME) if isinstance(data, dict) else None
    return entry if is_onlooker_server(entry) else None
