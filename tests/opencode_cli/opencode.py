"""A project driven by the real opencode binary (pinned, in .opencode-test/), offline: HOME and
XDG folders under tmp, a scripted OpenAI-compatible streaming endpoint as its only provider, and
`onlooker install opencode` done in the project as the README says."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from onlooker.daemon.hookd import running_pid
from onlooker.daemon.worker import worker_pid
from onlooker.testing import ScriptedEndpoint

REPO = Path(__file__).resolve().parents[2]
NODE_MODULES = REPO / ".opencode-test" / "node_modules"
BINARY = NODE_MODULES / "opencode-linux-x64" / "bin" / "opencode"
PLUGIN_VERSION = "1.18.33"
MODEL = "scripted/scripted-model"


@dataclass
class Opencode:
    project: Path
    home: Path
    onlooker_home: Path
    worker_idle: str = "5"
    """Seconds the worker stays up with nothing to do (a default install's: 60)."""

    @property
    def env(self) -> dict[str, str]:
        home = self.home
        return {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "ONLOOKER_HOME": str(self.onlooker_home),
            "ONLOOKER_HOOKD_IDLE": "60",
            "ONLOOKER_WORKER_IDLE": self.worker_idle,
        }

    def prepare(self, endpoint: ScriptedEndpoint) -> None:
        """The project's opencode.json, and @opencode-ai/plugin where opencode looks for it at
        start-up (with a lock file naming it, so it does not try the registry)."""
        config = {
            "$schema": "https://opencode.ai/config.json",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"bash": "allow"},
            "model": MODEL,
            "provider": {
                "scripted": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Scripted",
                    "options": {"baseURL": endpoint.url, "apiKey": "x"},
                    "models": {"scripted-model": {"name": "Scripted", "tool_call": True}},
                }
            },
        }
        (self.project / "opencode.json").write_text(json.dumps(config, indent=2))
        for folder in (self.project / ".opencode", self.home / ".config" / "opencode"):
            _plugin_package(folder)

    def onlooker(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(Path(sys.executable).with_name("onlooker")), *args],
            cwd=self.project, env=self.env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr or done.stdout
        return done

    def run(self, prompt: str, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(BINARY), "run", "--print-logs", *args, prompt],
            cwd=self.project, env=self.env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    def serve(self, port: int) -> subprocess.Popen[bytes]:
        """`opencode serve` on 127.0.0.1:`port`; its output goes to serve.log in its home."""
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.home / "serve.log", "ab") as log:
            return subprocess.Popen(
                [str(BINARY), "serve", "--port", str(port), "--hostname", "127.0.0.1"],
                cwd=self.project, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip

    def stop(self) -> None:
        """Stop the hook service and worker the plugin started, and wait for them."""
        for pid_of in (running_pid, worker_pid):
            pid = pid_of(self.onlooker_home)
            if pid is None or pid <= 0:
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            deadline = time.monotonic() + 30
            while pid_of(self.onlooker_home) is not None and time.monotonic() < deadline:
                time.sleep(0.1)


def _plugin_package(folder: Path) -> None:
    modules = folder / "node_modules" / "@opencode-ai"
    modules.mkdir(parents=True, exist_ok=True)
    (modules / "plugin").symlink_to(NODE_MODULES / "@opencode-ai" / "plugin")
    dependencies = {"@opencode-ai/plugin": PLUGIN_VERSION}
    (folder / "package.json").write_text(json.dumps({"dependencies": dependencies}))
    lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": dependencies}}}
    (folder / "package-lock.json").write_text(json.dumps(lock))


def user_text(request: dict[str, object]) -> str:
    """The text of the last user message of a chat request."""
    messages = request.get("messages")
    assert isinstance(messages, list)
    content = [m for m in messages if m.get("role") == "user"][-1].get("content")
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content)
    return str(content)


def tool_messages(request: dict[str, object]) -> list[str]:
    """The tool results a chat request hands the model."""
    messages = request.get("messages")
    assert isinstance(messages, list)
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]
