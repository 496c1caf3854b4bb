"""Health of onlooker on this machine: the hook service, the spool, recent errors, the store,
where the Claude Code hooks are installed and whether they (and the MCP server) can run; and
replaying spooled hook inputs.
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..hosts.claude_code.hook import HookHandler
from ..hosts.claude_code.install import installed_hooks, settings_path
from ..hosts.claude_code.plugin import HOOKS_FILE, installed_plugins
from ..hosts.claude_code.runnable import Problem, installed_problems
from ..side_effects import JOB_KIND as SIDE_EFFECT_JOB
from ..store import Store
from .hookd import running_pid
from .spool import SpoolEntry, replay, spool_entries

LOG_FILE = Path("logs") / "hookd.log"
RECENT_ERRORS = 10
STUCK_AFTER = 600.0
"""Seconds after which a job still waiting or running means no worker is draining the queue."""
RECENT_FAILURES = timedelta(days=7)
"""A background job or observer run that failed this recently makes doctor's verdict not ok."""


@dataclass(frozen=True, slots=True)
class Report:
    """What `onlooker doctor` found."""

    home: Path
    service_pid: int | None
    spool: tuple[SpoolEntry, ...]
    """Inputs waiting to be replayed (the hook service replays them when it is idle)."""
    errors: tuple[str, ...]
    store: dict[str, Any]
    hooks: dict[str, list[str]] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=lambda: {"valid": True})
    refused: tuple[SpoolEntry, ...] = ()
    """Inputs that cannot go through (not a hook input, or failed again when replayed)."""
    cannot_run: tuple[Problem, ...] = ()
    """Installed hook commands and MCP servers that cannot run on this machine."""
    other_configs: tuple[dict[str, Any], ...] = ()
    """Other projects' config files the hooks met that still have problems."""

    @property
    def healthy(self) -> bool:
        return (
            not self.spool
            and not self.refused
            and bool(self.store.get("ok"))
            and bool(self.config.get("valid"))
            and not self.other_configs
            and not self.cannot_run
            and not self.store.get("jobs", {}).get("stuck")
            and not self.store.get("jobs", {}).get("recent_failed")
            and not self.store.get("run_errors", {}).get("recent")
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "home": str(self.home),
            "healthy": self.healthy,
            "service": {"running": self.service_pid is not None, "pid": self.service_pid},
            "spool": [
                {"file": str(e.path), "reason": e.reason, "bytes": e.size} for e in self.spool
            ],
            "refused": [
                {"file": str(e.path), "reason": e.reason, "bytes": e.size} for e in self.refused
            ],
            "recent_errors": list(self.errors),
            "store": self.store,
            "installed_hooks": self.hooks,
            "cannot_run": [problem.to_dict() for problem in self.cannot_run],
            "config": self.config,
            "other_configs": list(self.other_configs),
        }


CONFIG_LINE = re.compile(r"config (.+?) (?:has problems|did not validate)")
"""A logged config problem (names the file); doctor checks the file again instead of showing
the line, which may be stale."""


def recent_errors(home: Path, limit: int = RECENT_ERRORS) -> tuple[str, ...]:
    """The latest errors and warnings of the hook service, but config problems (which
    `logged_configs` checks again, so a fixed config is not reported)."""
    lines = _log_lines(home)
    errors = [line for line in lines if " ERROR " in line or " WARNING " in line]
    return tuple(line for line in errors if not CONFIG_LINE.search(line))[-limit:]


def logged_configs(home: Path) -> list[Path]:
    """The config files the hook service logged problems of, each once, latest last."""
    found = [m.group(1) for line in _log_lines(home) if (m := CONFIG_LINE.search(line))]
    return [Path(path) for path in dict.fromkeys(reversed(found))][::-1]


def _log_lines(home: Path) -> list[str]:
    try:
        with open(home / LOG_FILE, "rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - 256 * 1024))
            return log.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []


def store_health(home: Path) -> dict[str, Any]:
    from ..memory import Memories

    try:
        with Store(home) as store:
            # a shared PostgreSQL store answered every query below: the server keeps its integrity
            check = "ok" if store.shared else _quick_check(store.index.path)
            return {
                "backend": store.index.dialect,
                "index": store.index.name,
                "ok": check == "ok",
                "integrity": check,
                "findings": store.index.count_findings(),
                "journals": sum(1 for _ in (home / "journals").rglob("*.jsonl")),
                "migrations": store.index.migrations(),
                "jobs": _jobs(store),
                "run_errors": _run_errors(store),
                "memories_dropped": Memories(store).dropped(),
            }
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


def _jobs(store: Store) -> dict[str, Any]:
    """The job queue: what waits and for how long, what failed for good and why."""
    backlog = store.jobs.backlog()
    failed, latest = store.jobs.failures()
    effects, effect_errors = store.jobs.failures(kind=SIDE_EFFECT_JOB)
    recent, _ = store.jobs.failures(since=store.clock.now() - RECENT_FAILURES)
    return {
        "queued": backlog.queued,
        "running": backlog.running,
        "oldest_seconds": round(backlog.oldest_seconds, 1),
        "stuck": backlog.oldest_seconds > STUCK_AFTER,
        "failed": failed,
        "recent_failed": recent,
        "latest_failures": [{"kind": kind, "error": error} for kind, error in latest],
        "side_effects_failed": effects,
        "side_effect_failures": [error for _, error in effect_errors],
    }


def _run_errors(store: Store) -> dict[str, Any]:
    """Observer runs (reviewers, the session scorer) that ended in an error, lately and the
    latest of them."""
    recent, latest = store.runs.errors(since=store.clock.now() - RECENT_FAILURES)
    return {
        "recent": recent,
        "days": RECENT_FAILURES.days,
        "latest": [{"observer": observer, "error": error} for observer, error in latest],
    }


def _quick_check(database: Path) -> str:
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
    try:
        return str(connection.execute("PRAGMA quick_check").fetchone()[0])
    finally:
        connection.close()


def config_health(project: Path) -> dict[str, Any]:
    """The project's config file as it is now: its problems and the sections a session runs
    with their defaults because of them."""
    from ..config import find_config, project_root

    root = project_root(project)
    path = find_config(root)
    if path is None:
        return {"file": None, "root": str(root), "valid": True, "problems": []}
    return _checked(path, root)


def other_configs(home: Path, project: Path) -> list[dict[str, Any]]:
    """Config files of other projects the hook service logged problems of that still have them
    (one fixed since is not listed)."""
    from ..config import find_config, project_root

    mine = find_config(project_root(project))
    found = []
    for path in logged_configs(home):
        if (mine is not None and path == mine) or not path.is_file():
            continue
        root = path.parent.parent if path.parent.name == ".onlooker" else path.parent
        checked = _checked(path, root)
        if not checked["valid"]:
            found.append(checked)
    return found


def _checked(path: Path, root: Path) -> dict[str, Any]:
    from ..config.hook_path import moved_to_background
    from ..config.tolerant import load_tolerant

    found = load_tolerant(path, root)
    notes = moved_to_background(found.config)
    if found.problems:
        return {"file": str(path), "valid": False, "problems": list(found.problems),
                "defaulted": list(found.defaulted), "notes": notes}  # fmt: skip
    reviewers = len(found.config.reviewers)
    return {"file": str(path), "valid": True, "problems": [], "reviewers": reviewers,
            "notes": notes}  # fmt: skip


def diagnose(home: Path, project: Path) -> Report:
    hooks = {}
    for path in [settings_path(scope, project) for scope in ("project", "local", "user")]:
        events = installed_hooks(path)
        if events:
            hooks[str(path)] = events
    for folder in installed_plugins(home):
        events = installed_hooks(folder / HOOKS_FILE)
        if events:
            hooks[str(folder / HOOKS_FILE)] = events
    return Report(
        home=home,
        service_pid=running_pid(home),
        spool=spool_entries(home),
        refused=spool_entries(home, refused=True),
        errors=recent_errors(home),
        store=store_health(home),
        hooks=hooks,
        config=config_health(project),
        other_configs=tuple(other_configs(home, project)),
        cannot_run=tuple(installed_problems(project, home)),
    )


def replay_spool(home: Path) -> tuple[int, int]:
    """Hand every spooled input to a handler again: (went through, refused for good)."""
    with Store(home) as store:
        handler = HookHandler(store)
        try:
            return replay(handler, home)
        finally:
            handler.close()
