"""Run the real Claude Code CLI headless (`claude -p`) against an `AnthropicEndpoint`, offline, with
its home, config and temporary files in a folder of the test's own.

`ClaudeCode(endpoint, home).run("Fix the test", cwd=project)` runs the CLI with the endpoint as its
model and gives back its JSON result and wall time. The CLI is `$ONLOOKER_CLAUDE_CLI`, else the one
`make` installs into `.claude-code/` (this folder or a parent), else `claude` on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ClaudeCodeMissing
from .anthropic_endpoint import AnthropicEndpoint

__all__ = ["CLAUDE_CODE_VERSION", "ClaudeCode", "ClaudeCodeMissing", "HeadlessRun", "find_claude"]

#: The Claude Code release `make` installs and the harness is tested with.
CLAUDE_CODE_VERSION = "2.1.328"
CLI_VARIABLE = "ONLOOKER_CLAUDE_CLI"
INSTALL_FOLDER = ".claude-code"
#: The tools a headless run may use without asking (as root, --dangerously-skip-permissions is
#: refused, and --allowedTools is what works).
ALLOWED_TOOLS = "Bash Read Write Edit"


def find_claude(start: Path | None = None) -> Path:
    """The Claude Code executable: `$ONLOOKER_CLAUDE_CLI`, `.claude-code/` here or in a parent
    folder (the native binary of the npm package's platform dependency), or `claude` on PATH."""
    chosen = os.environ.get(CLI_VARIABLE)
    if chosen:
        path = Path(chosen).expanduser()
        if not os.access(path, os.X_OK):
            raise ClaudeCodeMissing(f"${CLI_VARIABLE} is {chosen}, which is not an executable")
        return path
    folder = (start or Path.cwd()).absolute()
    for place in (folder, *folder.parents):
        found = installed_cli(place / INSTALL_FOLDER)
        if found is not None:
            return found
    on_path = shutil.which("claude")
    if on_path:
        return Path(on_path)
    raise ClaudeCodeMissing(
        f"no Claude Code CLI: set ${CLI_VARIABLE}, run `make claude-code` (npm install of "
        f"@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION} into {INSTALL_FOLDER}/), or put "
        "`claude` on PATH"
    )


def installed_cli(prefix: Path) -> Path | None:
    """The CLI of an `npm install --prefix PREFIX @anthropic-ai/claude-code`, if there is one.

    The native binary of the platform package is preferred: it runs without Node and whether or
    not npm ran the package's postinstall (which copies it over `bin/claude.exe`)."""
    scope = prefix / "node_modules" / "@anthropic-ai"
    for native in sorted(scope.glob("claude-code-*/claude")):
        if os.access(native, os.X_OK):
            return native
    wrapper = prefix / "node_modules" / ".bin" / "claude"
    return wrapper if os.access(wrapper, os.X_OK) else None


@dataclass(frozen=True, slots=True)
class HeadlessRun:
    """One `claude -p` run: its exit code, output and JSON result, and how long it took."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    result: dict[str, Any]
    started: float = 0.0
    """`time.monotonic()` when the CLI was started (the endpoint's `received` times compare)."""

    @property
    def session_id(self) -> str:
        return str(self.result.get("session_id", ""))

    @property
    def text(self) -> str:
        """The agent's final answer."""
        return str(self.result.get("result", ""))

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.result.get("is_error") is False


@dataclass
class ClaudeCode:
    """The CLI, pointed at `endpoint`, with everything it writes under `home`."""

    endpoint: AnthropicEndpoint
    home: Path
    executable: Path = field(default_factory=find_claude)
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra variables for the CLI (and the hooks it runs)."""
    allowed_tools: str = ALLOWED_TOOLS

    def environment(self) -> dict[str, str]:
        """This process's environment without any Anthropic or Claude Code setting of the user's,
        with the endpoint as the model and `home` as HOME, config folder and temp folder."""
        home = self.home.absolute()
        scratch = home / "tmp"
        scratch.mkdir(parents=True, exist_ok=True)
        inherited = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("ANTHROPIC_", "CLAUDE_", "CLAUDECODE"))
        }
        return {
            **inherited,
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "TMPDIR": str(scratch),
            "ANTHROPIC_BASE_URL": self.endpoint.url,
            "ANTHROPIC_API_KEY": "sk-test",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            **self.env,
        }

    def run(
        self,
        prompt: str,
        *,
        cwd: Path,
        resume: str | None = None,
        args: Sequence[str] = (),
        timeout: float = 180.0,
    ) -> HeadlessRun:
        """`claude -p PROMPT --output-format json --allowedTools ...` in `cwd`."""
        command = [str(self.executable), "-p", prompt, "--output-format", "json"]
        command += ["--allowedTools", self.allowed_tools]
        if resume:
            command += ["--resume", resume]
        command += list(args)
        started = time.monotonic()
        done = subprocess.run(
            command,
            cwd=cwd,
            env=self.environment(),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        seconds = time.monotonic() - started
        try:
            result = json.loads(done.stdout)
        except ValueError:
            result = {}
        if not isinstance(result, dict):
            result = {"result": result}
        return HeadlessRun(done.returncode, done.stdout, done.stderr, seconds, result, started)
