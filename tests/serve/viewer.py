"""Helpers for the viewer's tests: run the real `onlooker serve` command, talk to it over HTTP
and read its event stream, run the real `onlooker hook` command."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from onlooker.daemon.client import start_service
from onlooker.daemon.hookd import running_pid

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))


@dataclass
class Viewer:
    process: subprocess.Popen[bytes]
    url: str

    @property
    def port(self) -> int:
        return int(urlsplit(self.url).port or 0)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """(status, JSON body or text) of one request, with the Host header a browser sends."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        data = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, body=data, headers={"Host": f"127.0.0.1:{self.port}",
                                                             **(headers or {})})  # fmt: skip
        answer = connection.getresponse()
        raw = answer.read().decode()
        connection.close()
        try:
            return answer.status, json.loads(raw)
        except ValueError:
            return answer.status, raw

    def token(self) -> str:
        status, page = self.request("GET", "/")
        assert status == 200
        found = re.search(r'name="onlooker-token" content="([^"]+)"', page)
        assert found, "the page carries no token"
        return found.group(1)

    def write(self, path: str, body: Any = None) -> tuple[int, Any]:
        """A write as the viewer's own page makes it: token, same origin."""
        return self.request("POST", path, body or {}, {
            "x-onlooker-token": self.token(), "Origin": f"http://127.0.0.1:{self.port}",
            "Content-Type": "application/json"})  # fmt: skip


@contextmanager
def running_viewer(*args: str) -> Iterator[Viewer]:
    """`onlooker serve --no-open ARGS` in the test's data home, stopped (SIGTERM) at the end."""
    process = subprocess.Popen([ONLOOKER, "serve", "--no-open", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=os.environ.copy())  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert found, (line, process.stderr.read().decode() if process.poll() is not None else "")
        yield Viewer(process, found.group(1))
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


class EventStream:
    """The viewer's `/events` read as a browser's EventSource would (its `id:` lines kept)."""

    def __init__(self, viewer: Viewer, last_event_id: str = "") -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", viewer.port, timeout=30)
        headers = {"Host": f"127.0.0.1:{viewer.port}", "Accept": "text/event-stream"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        self.connection.request("GET", "/events", headers=headers)
        self.answer = self.connection.getresponse()
        assert self.answer.status == 200
        assert self.answer.getheader("content-type", "").startswith("text/event-stream")

    def next(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next message: {id, event, data} (comments and `retry:` skipped)."""
        assert self.connection.sock is not None
        self.connection.sock.settimeout(timeout)
        message: dict[str, Any] = {}
        while True:
            line = self.answer.fp.readline().decode().rstrip("\n")
            if not line:
                if "data" in message:
                    return message
                continue
            name, _, value = line.partition(": ")
            if name == "id":
                message["id"] = value
            elif name == "event":
                message["event"] = value
            elif name == "data":
                message["data"] = json.loads(value)

    def until(self, wanted: Any, timeout: float = 10.0) -> dict[str, Any]:
        """The first message whose data satisfies `wanted`."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "no such message in time"
            message = self.next(left)
            if wanted(message.get("data", {})):
                return message

    def close(self) -> None:
        self.connection.close()


def warm_service(home: Path) -> None:
    """Start the hook service for `home` (if none runs) and wait until it answers hooks."""
    if running_pid(home) is None:
        start_service(str(home))
    log = home / "logs" / "hookd.log"
    deadline = time.monotonic() + 60
    while True:
        pid = running_pid(home)
        if pid and pid > 0 and log.exists() and f"hook service {pid} ready" in log.read_text():
            return
        assert time.monotonic() < deadline, "the hook service did not start"
        time.sleep(0.02)


def hook(payload: dict[str, Any]) -> dict[str, Any]:
    """Run the real `onlooker hook` command; its parsed answer ({} when it printed nothing). A
    SessionStart goes to a warm service: a cold start hands its input over and answers nothing,
    its context coming with the prompt (specs/hook-service.md, "A cold start")."""
    if payload.get("hook_event_name") == "SessionStart":
        warm_service(Path(os.environ["ONLOOKER_HOME"]))
    done = subprocess.run([ONLOOKER, "hook"], input=json.dumps(payload).encode(),
                          capture_output=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else {}


def context(answer: dict[str, Any]) -> str:
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


TEST_COMMAND = {"command": "pytest tests/test_tokens.py -q", "description": "Token tests"}
TEST_ERROR = ("Exit code 1\nFAILED tests/test_tokens.py::test_hash - AssertionError: sha512 "
              "expected\n1 failed, 4 passed")  # fmt: skip


class Agent:
    """A Claude Code session as its hooks see it: one project folder, one session id."""

    def __init__(self, root: Path, session: str) -> None:
        self.root, self.session, self.calls = root, session, 0

    def base(self, event: str) -> dict[str, Any]:
        return {"session_id": self.session, "transcript_path": f"/tmp/{self.session}.jsonl",
                "cwd": str(self.root), "permission_mode": "acceptEdits",
                "hook_event_name": event}  # fmt: skip

    def start(self, prompt: str) -> str:
        hook({**self.base("SessionStart"), "source": "startup"})
        return context(hook({**self.base("UserPromptSubmit"), "prompt": prompt}))

    def prompt(self, prompt: str) -> str:
        return context(hook({**self.base("UserPromptSubmit"), "prompt": prompt}))

    def failing_test_run(self) -> str:
        self.calls += 1
        return context(hook({**self.base("PostToolUseFailure"), "error": TEST_ERROR,
                             "is_interrupt": False, "tool_name": "Bash",
                             "tool_input": TEST_COMMAND,
                             "tool_use_id": f"toolu_{self.session}_{self.calls:03d}"}))  # fmt: skip


class OpencodeAgent:
    """An opencode session as its plugin forwards it: through the real `onlooker hook` command
    (the hook client the plugin runs), with `host: opencode`."""

    def __init__(self, root: Path, session: str) -> None:
        self.root, self.session, self.calls = root, session, 0

    def forward(self, hook_name: str, data: dict[str, Any], out: dict[str, Any] | None = None
                ) -> dict[str, Any]:  # fmt: skip
        return hook({"host": "opencode", "hook": hook_name, "session_id": self.session,
                     "cwd": str(self.root), "input": data, "output": out or {}})  # fmt: skip

    def start(self) -> None:
        self.forward("event", {"type": "session.created", "properties": {
            "info": {"id": self.session, "directory": str(self.root)}}})  # fmt: skip

    def failing_test_run(self) -> str:
        self.calls += 1
        call = {"tool": "bash", "sessionID": self.session, "callID": f"c{self.calls}",
                "args": TEST_COMMAND}  # fmt: skip
        out = {"title": "", "output": TEST_ERROR, "metadata": {"exit": 1}}
        return str(self.forward("tool.execute.after", call, out).get("append", ""))
