"""The hook service under load, measured side by side with the same service answering one hook
at a time ($ONLOOKER_HOOKD_THREADS=1), each in a fresh data home, through the installed command.

(a) head of line: another project's reviewers take 15 s; an unrelated session's hooks, p95
    (target < 100 ms); (b) 16 sessions sending hooks as fast as they can for a few seconds, p95
    (target <= 150 ms) and hooks per second.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.measure import Result
from onlooker.daemon.hookd import running_pid
from onlooker.hosts.claude_code.install import hook_command
from onlooker.testing import ScriptedEndpoint

REVIEW_LATENCY = 15.0
BUSY_SESSIONS = 16
BUSY_SECONDS = 6.0
REVIEWER = """\
behaviors:
  - module: hooks-observations
    config:
      hooks:
        - trigger: message:received
      execution:
        mode: parallel
        timeout_per_observer: 30
        on_timeout: skip
      observers:
        - name: Slow Reviewer
          role: Logic review
          focus: Mistakes
          model: "{model}"
          watch:
            - type: conversation
"""


def _payload(session: str, n: int, cwd: Path, event: str = "PostToolUse") -> bytes:
    data: dict[str, object] = {
        "session_id": session, "transcript_path": f"/bench/{session}.jsonl", "cwd": str(cwd),
        "hook_event_name": event,
    }  # fmt: skip
    if event == "PostToolUse":
        data.update(
            tool_name="Read",
            tool_use_id=f"toolu_{session}_{n}",
            tool_input={"file_path": f"{cwd}/src/module_{n}.py"},
            tool_response={"type": "text", "file": {"content": f"x = {n}\n" * 20}},
        )
    else:
        data["prompt"] = f"step {n}: go on"
    return json.dumps(data).encode()


def _hook(payload: bytes) -> float:
    started = time.perf_counter()
    subprocess.run(hook_command(), input=payload, stdout=subprocess.DEVNULL, shell=True,
                   check=True)  # fmt: skip
    return time.perf_counter() - started


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _home(threads: int) -> Path:
    home = Path(tempfile.mkdtemp(prefix=f"onlooker-bench-load-{threads}-"))
    os.environ["ONLOOKER_HOME"] = str(home)
    os.environ["ONLOOKER_HOOKD_THREADS"] = str(threads)
    os.environ["ONLOOKER_HOOK_TIMEOUT"] = "25"
    (home / "b" / ".git").mkdir(parents=True)
    _hook(_payload("warm-up", 0, home / "b"))  # starts the service
    return home


def _stop(home: Path) -> None:
    pid = running_pid(home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + REVIEW_LATENCY + 10
    while running_pid(home) is not None and time.monotonic() < deadline:
        time.sleep(0.05)


def head_of_line(threads: int, hooks: int) -> list[float]:
    """Latencies of an unrelated session's hooks while two sessions wait on slow reviewers."""
    home = _home(threads)
    try:
        with ScriptedEndpoint(latency=REVIEW_LATENCY) as endpoint:
            slow = home / "a"
            (slow / ".git").mkdir(parents=True)
            (slow / "onlooker.yaml").write_text(REVIEWER.format(model=endpoint.spec()))
            waiting = [
                threading.Thread(
                    target=_hook, args=(_payload(f"slow-{i}", 1, slow, "UserPromptSubmit"),)
                )
                for i in range(2)
            ]
            for thread in waiting:
                thread.start()
            deadline = time.monotonic() + REVIEW_LATENCY
            while len(endpoint.requests) < (2 if threads > 1 else 1):
                if time.monotonic() > deadline:
                    raise RuntimeError("the slow reviewers were never asked")
                time.sleep(0.02)
            latencies = [_hook(_payload("fast", n, home / "b")) for n in range(1, hooks + 1)]
            for thread in waiting:
                thread.join()
    finally:
        _stop(home)
    return latencies


def busy(threads: int) -> tuple[list[float], int]:
    """Latencies of 16 sessions sending hooks back to back for BUSY_SECONDS; and their count."""
    home = _home(threads)
    latencies: list[float] = []
    lock = threading.Lock()
    until = time.monotonic() + BUSY_SECONDS

    def session(i: int) -> None:
        n = 0
        while time.monotonic() < until:
            n += 1
            took = _hook(_payload(f"busy-{i}", n, home / "b"))
            with lock:
                latencies.append(took)

    try:
        workers = [threading.Thread(target=session, args=(i,)) for i in range(BUSY_SESSIONS)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        _stop(home)
    return latencies, len(latencies)


def run() -> list[Result]:
    serial_line = head_of_line(1, 1)
    line = head_of_line(32, 20)
    serial_busy, serial_count = busy(1)
    lanes_busy, lanes_count = busy(32)
    line_p95 = _p(line, 0.95)
    busy_p95 = _p(lanes_busy, 0.95)
    return [
        Result(
            "head of line, one at a time",
            f"{_p(serial_line, 0.5):.0f} ms",
            "an unrelated hook while reviewers take 15 s (the old service)",
        ),
        Result(
            "head of line, p50 / p95",
            f"{_p(line, 0.5):.0f} / {line_p95:.0f} ms",
            "target p95 < 100 ms",
            line_p95 < 100,
        ),
        Result(
            "16 busy sessions, one at a time",
            f"{_p(serial_busy, 0.5):.0f} / {_p(serial_busy, 0.95):.0f} ms",
            f"p50 / p95, {serial_count / BUSY_SECONDS:.1f} hooks/s",
        ),
        Result(
            "16 busy sessions, p50 / p95",
            f"{statistics.median(lanes_busy) * 1000:.0f} / {busy_p95:.0f} ms",
            f"{lanes_count / BUSY_SECONDS:.1f} hooks/s; target p95 <= 150 ms",
            busy_p95 <= 150,
        ),
    ]
