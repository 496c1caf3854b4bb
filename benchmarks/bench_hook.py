"""Claude Code hook latency, measured against bare Python start-up in the same run.

(a) a PostToolUse hook run by the installed command ÷ `python3 -I -S -c pass` (target <= 1.5);
(b) a hook at call 5000 of a session ÷ one at call 10 (target <= 1.1). Medians of interleaved runs.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.measure import Result
from onlooker.daemon.client import RUN_DIR, ask
from onlooker.daemon.hookd import running_pid
from onlooker.hosts.claude_code.install import hook_command

ROUNDS = 60
LONG_SESSION = 5000


def _payload(session: str, n: int, cwd: str) -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "transcript_path": f"/bench/{session}.jsonl",
            "cwd": cwd,
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": f"{cwd}/src/module_{n % 40}.py"},
            "tool_response": {"type": "text", "file": {"content": "x = 1\n" * 20}},
            "tool_use_id": f"toolu_{session}_{n}",
            "duration_ms": 4,
        }
    ).encode()


def _timed(argv: list[str], stdin: bytes = b"", shell: bool = False) -> float:
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, check=True, shell=shell)
    return time.perf_counter() - started


def run() -> list[Result]:
    home = Path(tempfile.mkdtemp(prefix="onlooker-bench-hook-"))
    os.environ["ONLOOKER_HOME"] = str(home)
    os.environ["ONLOOKER_HOOKD_IDLE"] = "120"
    cwd = str(home / "project")
    command = hook_command()
    bare = [os.path.realpath(sys.executable), "-I", "-S", "-c", "pass"]
    try:
        _timed(command, _payload("short", 0, cwd), shell=True)  # starts the service
        run_dir = str(home / RUN_DIR)
        for n in range(1, 10):
            ask(run_dir, _payload("short", n, cwd), 30)
        for n in range(LONG_SESSION - 1):
            ask(run_dir, _payload("long", n, cwd), 30)
        base, hook, short, long = [], [], [], []
        for i in range(ROUNDS):
            base.append(_timed(bare))
            hook.append(_timed(command, _payload("short", 100 + i, cwd), shell=True))
            short.append(_timed(command, _payload("short", 1000 + i, cwd), shell=True))
            long.append(_timed(command, _payload("long", LONG_SESSION + i, cwd), shell=True))
        cli = [
            _timed(
                [str(Path(sys.executable).with_name("onlooker")), "hook"], _payload("cli", i, cwd)
            )
            for i in range(15)
        ]
    finally:
        pid = running_pid(home)
        if pid:
            os.kill(pid, signal.SIGTERM)
    shell_cost = statistics.median([_timed("true", shell=True) for _ in range(ROUNDS)])
    bare_ms = statistics.median(base) * 1000
    hook_ms = (statistics.median(hook) - shell_cost) * 1000
    ratio = hook_ms / bare_ms
    growth = statistics.median(long) / statistics.median(short)
    cli_ms = statistics.median(cli) * 1000
    return [
        Result("python3 -I -S -c pass", f"{bare_ms:.1f} ms", "median of interleaved runs"),
        Result(
            "PostToolUse hook",
            f"{hook_ms:.1f} ms",
            "installed command, warm service, shell cost removed",
        ),
        Result("hook / bare python", f"{ratio:.2f}x", "target <= 1.5", ratio <= 1.5),
        Result(f"call {LONG_SESSION} / call 10", f"{growth:.2f}x", "target <= 1.1", growth <= 1.1),
        Result(
            "`onlooker hook` (console script)",
            f"{cli_ms:.1f} ms",
            "same answer; imports the package, no target",
        ),
    ]
