"""The hook service under load, measured side by side with the same service answering one hook
at a time ($ONLOOKER_HOOKD_THREADS=1), each in a fresh data home, through the installed command.

(a) head of line: another project's reviewers take 15 s; an unrelated session's hooks, p95
    (target < 100 ms); (b) 16 sessions sending hooks as fast as they can for a few seconds, p95
    (target <= 150 ms) and hooks per second, with the CPU each hook costs the service and the
    client. Beside it, in the same run: one idle session's hooks, and the floor, 16 loops
    starting a bare `python -I -S -c pass` the same way (what 16 process starts cost on this
    machine, whatever the service does). The busy sessions and the floor take turns, ROUNDS
    rounds of each, so a shared machine's load falls on both alike: the ratio is the median of
    each round's (its spread beside it), and the CPU ratio (service and client per hook / one
    bare start) is the figure no other load moves. `python -m benchmarks.bench_hookd_load busy`
    runs (b).
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.measure import Result, report
from onlooker.daemon.hookd import running_pid
from onlooker.hosts.claude_code.install import FAIL_OPEN, hook_command
from onlooker.testing import ScriptedEndpoint

REVIEW_LATENCY = 15.0
BUSY_SESSIONS = 16
BUSY_SECONDS = 6.0
ROUNDS = 3
"""Rounds of busy sessions and of the floor, taking turns, ROUND_SECONDS each."""
ROUND_SECONDS = 3.0
TARGET_RATIO = 1.2
IDLE_HOOKS = 30
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


def _hook(payload: bytes, command: str = "") -> float:
    started = time.perf_counter()
    subprocess.run(command or hook_command(), input=payload, stdout=subprocess.DEVNULL,
                   shell=True, check=True)  # fmt: skip
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


def _loops(home: Path, command: str = "", seconds: float = BUSY_SECONDS) -> list[float]:
    """Latencies of 16 sessions sending hooks (or running `command`) back to back."""
    latencies: list[float] = []
    lock = threading.Lock()
    until = time.monotonic() + seconds
    sent = _sent.setdefault(home, [0] * BUSY_SESSIONS)  # numbers go on from an earlier round

    def session(i: int) -> None:
        while time.monotonic() < until:
            sent[i] += 1
            took = _hook(_payload(f"busy-{i}", sent[i], home / "b"), command)
            with lock:
                latencies.append(took)

    workers = [threading.Thread(target=session, args=(i,)) for i in range(BUSY_SESSIONS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return latencies


_sent: dict[Path, list[int]] = {}


def _cpu_seconds(pid: int) -> float:
    """User and system CPU a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _clients_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


@dataclass(frozen=True, slots=True)
class Busy:
    latencies: list[float]
    service_cpu: float
    """CPU seconds of the service per hook."""
    client_cpu: float
    """CPU seconds of one hook command (its shell and Python) per hook."""


def busy(threads: int) -> Busy:
    """16 sessions sending hooks back to back for BUSY_SECONDS: latencies, CPU per hook."""
    home = _home(threads)
    try:
        pid = running_pid(home) or 0
        service, clients = _cpu_seconds(pid), _clients_cpu()
        latencies = _loops(home)
        count = len(latencies)
        service_cpu = (_cpu_seconds(pid) - service) / count
        client_cpu = (_clients_cpu() - clients) / count
    finally:
        _stop(home)
    return Busy(latencies, service_cpu, client_cpu)


@dataclass(frozen=True, slots=True)
class Floor:
    latencies: list[float]
    cpu: float
    """CPU seconds of one bare start (its shell and Python)."""

    @property
    def bound(self) -> float:
        """The mean latency 16 loops cannot beat on this machine's cores, in ms: each start's
        CPU times 16, shared by the cores (no scheduling, no service, no other load)."""
        return self.cpu * BUSY_SESSIONS / (os.cpu_count() or 1) * 1000


def idle(hooks: int) -> list[float]:
    """Latencies of one session's hooks, one after another, on an otherwise idle service."""
    home = _home(32)
    try:
        return [_hook(_payload("idle", n, home / "b")) for n in range(1, hooks + 1)]
    finally:
        _stop(home)


@dataclass(frozen=True, slots=True)
class SideBySide:
    """Busy sessions and the floor measured in turns: all latencies, and each round's ratio."""

    busy: Busy
    floor: Floor
    ratios: list[float]
    """Each round's busy p95 / floor p95."""

    @property
    def cpu_ratio(self) -> float:
        """CPU per hook (service and client) / CPU per bare start."""
        return (self.busy.service_cpu + self.busy.client_cpu) / self.floor.cpu


def side_by_side(rounds: int = ROUNDS, seconds: float = ROUND_SECONDS) -> SideBySide:
    """`rounds` rounds of 16 busy sessions on one service, each followed by a round of the
    floor, so that both see the same load from the rest of the machine."""
    home = _home(32)
    bare_home = Path(tempfile.mkdtemp(prefix="onlooker-bench-floor-"))
    bare_command = f"{shlex.quote(sys.executable)} -I -S -c pass{FAIL_OPEN}"
    busy_latencies: list[float] = []
    bare_latencies: list[float] = []
    ratios: list[float] = []
    service_cpu = client_cpu = bare_cpu = 0.0
    try:
        pid = running_pid(home) or 0
        for _ in range(rounds):
            service, clients = _cpu_seconds(pid), _clients_cpu()
            hooks = _loops(home, seconds=seconds)
            service_cpu += _cpu_seconds(pid) - service
            client_cpu += _clients_cpu() - clients
            clients = _clients_cpu()
            starts = _loops(bare_home, bare_command, seconds)
            bare_cpu += _clients_cpu() - clients
            ratios.append(_p(hooks, 0.95) / _p(starts, 0.95))
            busy_latencies += hooks
            bare_latencies += starts
    finally:
        _stop(home)
    count = len(busy_latencies)
    return SideBySide(
        Busy(busy_latencies, service_cpu / count, client_cpu / count),
        Floor(bare_latencies, bare_cpu / len(bare_latencies)),
        ratios,
    )


def _busy_results(measured: SideBySide, alone: list[float]) -> list[Result]:
    lanes, bare, ratios = measured.busy, measured.floor, sorted(measured.ratios)
    busy_p95, idle_p95 = _p(lanes.latencies, 0.95), _p(alone, 0.95)
    floor_p95 = _p(bare.latencies, 0.95)
    ratio = statistics.median(ratios)
    cores = os.cpu_count() or 1
    seconds = len(ratios) * ROUND_SECONDS
    return [
        Result(
            "one idle session, p50 / p95",
            f"{_p(alone, 0.5):.0f} / {idle_p95:.0f} ms",
            "one hook at a time",
        ),
        Result(
            "floor: 16 bare pythons, p50 / p95",
            f"{_p(bare.latencies, 0.5):.0f} / {floor_p95:.0f} ms",
            "16 loops of `python -I -S -c pass` through the shell: process starts alone",
        ),
        Result(
            "floor from CPU, mean",
            f"{bare.bound:.0f} ms",
            f"16 x {bare.cpu * 1000:.1f} ms CPU per bare start / {cores} cores",
        ),
        Result(
            "16 busy sessions, p50 / p95",
            f"{_p(lanes.latencies, 0.5):.0f} / {busy_p95:.0f} ms",
            f"{len(lanes.latencies) / seconds:.1f} hooks/s; target p95 <= 150 ms",
            busy_p95 <= 150,
        ),
        Result(
            "16 busy sessions / floor, p95",
            f"{ratio:.2f}x",
            f"median of {len(ratios)} rounds in turns [{ratios[0]:.2f}-{ratios[-1]:.2f}]; "
            f"target <= {TARGET_RATIO:g}x: {'met' if ratio <= TARGET_RATIO else 'MISSED'}; "
            f"{busy_p95 / idle_p95:.1f}x one idle session's p95",
            ratio <= TARGET_RATIO,
        ),
        Result(
            "CPU per hook: service / client",
            f"{lanes.service_cpu * 1000:.1f} / {lanes.client_cpu * 1000:.1f} ms",
            f"the service's work; the hook command's (a bare start: {bare.cpu * 1000:.1f} ms)",
        ),
        Result(
            "CPU per hook / bare start",
            f"{measured.cpu_ratio:.2f}x",
            "service and client per hook over one bare start: what the ratio tends to on an "
            "otherwise idle machine",
        ),
    ]


def run_busy() -> list[Result]:
    return _busy_results(side_by_side(), idle(IDLE_HOOKS))


def run() -> list[Result]:
    serial_line = head_of_line(1, 1)
    line = head_of_line(32, 20)
    serial_busy = busy(1)
    line_p95 = _p(line, 0.95)
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
            f"{_p(serial_busy.latencies, 0.5):.0f} / {_p(serial_busy.latencies, 0.95):.0f} ms",
            f"p50 / p95, {len(serial_busy.latencies) / BUSY_SECONDS:.1f} hooks/s",
        ),
        *run_busy(),
    ]


if __name__ == "__main__":
    sys.exit(report(run_busy() if sys.argv[1:] == ["busy"] else run()))
