"""A project driven by the real Claude Code CLI: install onlooker as the README says, run headless
turns against a scripted endpoint, read what onlooker journaled, stop what it started."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from onlooker.daemon.hookd import running_pid
from onlooker.daemon.worker import worker_pid
from onlooker.store.home import journal_path, project_for
from onlooker.testing import AnthropicEndpoint, ClaudeCode, HeadlessRun
from onlooker.testing.messages_request import MessagesRequest

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))


@dataclass
class Agent:
    claude: Path
    project: Path
    home: Path
    onlooker_home: Path

    @property
    def key(self) -> str:
        """The store's key of the project (`shop-<hash of its root>`)."""
        return project_for(self.project)

    def cli(self, endpoint: AnthropicEndpoint, **env: str) -> ClaudeCode:
        return ClaudeCode(endpoint, self.home, executable=self.claude, env=env)

    def onlooker(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """`onlooker ARGS` in the project folder, with the CLI's HOME and config folder."""
        env = _agent_env(self.home)
        done = subprocess.run(
            [ONLOOKER, *args],
            cwd=self.project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check:
            assert done.returncode == 0, done.stderr or done.stdout
        return done

    def install(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`onlooker install claude-code`, run in the project, exactly as the README says."""
        return self.onlooker("install", "claude-code", *args)

    def run(
        self,
        endpoint: AnthropicEndpoint,
        prompt: str,
        *,
        resume: str | None = None,
        args: Sequence[str] = (),
        env: dict[str, str] | None = None,
    ) -> HeadlessRun:
        """One headless `claude -p` run in the project; asserts it ended without an error."""
        done = self.cli(endpoint, **(env or {})).run(
            prompt, cwd=self.project, resume=resume, args=args
        )
        assert done.ok, f"exit {done.returncode}: {done.stderr[-2000:]} {done.stdout[-2000:]}"
        return done

    def journal(self, session_id: str) -> list[dict[str, Any]]:
        """The records onlooker journaled for a session of this project."""
        path = journal_path(self.onlooker_home, self.key, session_id)
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def write(self, relative: str, text: str) -> Path:
        path = self.project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path


def start_context(request: MessagesRequest) -> list[str]:
    """What a session's start told the model in its first request: its SessionStart hook's
    context, or, when the start found no hook service running and did not wait for one to start,
    the first prompt's hook's, which carries it (specs/hook-service.md, "A cold start")."""
    return request.hook_context("SessionStart") or request.hook_context("UserPromptSubmit")


def _agent_env(home: Path) -> dict[str, str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    return inherited | {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}


def wait_for(condition: Callable[[], object], timeout: float = 60.0, what: str = "") -> None:
    """Poll `condition()` until it is true; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(0.05)


def stop_processes(home: Path) -> None:
    """Stop the hook service and the worker running for the data home `home`, and wait."""
    for pid_of in (running_pid, worker_pid):
        pid = pid_of(home)
        if pid is None or pid <= 0:
            continue
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        wait_for(lambda pid_of=pid_of: pid_of(home) is None, 20, f"pid {pid} to stop")
