"""Nothing a hook sends can take the hook service down: through the real commands and one live
service, the inputs that used to kill it, then a seeded fuzz of a few hundred inputs. Every hook
exits 0 at once, and the service keeps its pid."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hook_runner import ONLOOKER

import onlooker
from onlooker.daemon.hookd import running_pid

ENTRY = Path(onlooker.__file__).parent / "daemon" / "entry.py"
INSTALLED = [sys.executable, "-I", "-S", str(ENTRY)]
"""What `onlooker install claude-code` writes, and Claude Code runs for every hook."""
CLI = [ONLOOKER, "hook"]
FUZZ_INPUTS = 300
SLOW = 3.0
"""Seconds a hook may take here (2 shared cores): a crashed service costs a 15 s restart."""
TRIES = 3
"""Times a fuzzed input is sent before it counts as slow: an input that makes the service slow
is slow each time; a machine busy with other tests or other work stalls one send now and then."""


def send(command: list[str], raw: bytes) -> tuple[subprocess.CompletedProcess[bytes], float]:
    started = time.perf_counter()
    done = subprocess.run(command, input=raw, capture_output=True, timeout=60)
    return done, time.perf_counter() - started


def base(n: int, cwd: Path) -> dict[str, Any]:
    return {
        "session_id": f"s-fuzz-{n % 7}", "transcript_path": "/t.jsonl", "cwd": str(cwd),
        "hook_event_name": "PostToolUse", "tool_name": "mcp__db__query",
        "tool_use_id": f"toolu_{n}", "tool_input": {"sql": "select 1"},
    }  # fmt: skip


def nested(depth: int, leaf: Any = 0) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def killers(cwd: Path) -> dict[str, bytes]:
    """The inputs that killed the service before it had limits."""
    head = json.dumps(base(0, cwd))[:-1] + ', "tool_response": '
    return {
        "integer of 4,301 digits": (head + "9" * 4301 + "}").encode(),
        "JSON nested 990 levels": (head + "[" * 990 + "]" * 990 + "}").encode(),
        "dict nested 500 deep": (head + json.dumps(nested(500)) + "}").encode(),
        "200,000 keys": (head + json.dumps(dict.fromkeys(map(str, range(200_000)))) + "}").encode(),
        "9 MB": (head + '"' + "a" * 9_000_000 + '"}').encode(),
    }


def test_the_inputs_that_killed_the_service_are_refused(
    tmp_path: Path, onlooker_home: Path
) -> None:
    ok = json.dumps({**base(1, tmp_path), "tool_response": "fine"}).encode()
    assert send(INSTALLED, ok)[0].returncode == 0
    pid = running_pid(onlooker_home)
    for name, raw in killers(tmp_path).items():
        done, seconds = send(INSTALLED, raw)
        assert (done.returncode, done.stdout, seconds < SLOW) == (0, b"", True), name
    assert running_pid(onlooker_home) == pid
    log = (onlooker_home / "logs" / "hookd.log").read_text()
    for reason in ("an integer of 4,301 digits", "nested deeper than 64 levels",
                   "more than 100,000 values"):  # fmt: skip
        assert f"spooled a hook input: hook input has {reason}" in log or reason in log
    deadline = time.monotonic() + 30  # the largest are spooled in the background
    refused = onlooker_home / "spool" / "refused"  # they can never go through: never replayed
    while len(list(refused.glob("*.hook"))) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    reasons = sorted(p.read_bytes().partition(b"\n")[0] for p in refused.glob("*.hook"))
    assert len(reasons) == 5 and any(b"9,0" in r and b"bytes" in r for r in reasons), reasons


def fuzzed(rng: random.Random, n: int, cwd: Path) -> bytes:
    """One generated input: a hook event with random fields, or random JSON, or broken bytes."""
    scalars: list[Any] = [
        None,
        True,
        -1,
        0,
        2**63,
        1.5,
        1e308,
        "",
        "x" * rng.randint(1, 5000),
        "é\u2028\x00",
        "DB_PASS=Zq8v!mR2pL",
        int("9" * rng.randint(1, 40)),
    ]
    kind = rng.randrange(10)
    event = base(n, cwd)
    event["hook_event_name"] = rng.choice(
        ["PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart", "Stop",
         "SubagentStop", "PreCompact", "SessionEnd", "Nope", 7]
    )  # fmt: skip
    if kind == 0:  # wrong types in known fields
        for field in rng.sample(["session_id", "cwd", "tool_name", "tool_input", "prompt",
                                 "error", "duration_ms", "agent_id", "tool_use_id"], 3):  # fmt: skip
            event[field] = rng.choice([*scalars, [], {}, [1, [2]]])
    elif kind == 1:  # deep
        event["tool_response"] = nested(rng.choice([10, 63, 65, 200, 800]), rng.choice(scalars))
    elif kind == 2:  # wide
        event["tool_response"] = {
            f"k{i}": rng.choice(scalars[:8]) for i in range(rng.choice([10, 5000, 40_000]))
        }
    elif kind == 3:  # numbers
        text = (
            json.dumps(event)[:-1]
            + ', "duration_ms": '
            + rng.choice(
                ["1e999", "-1e999", "NaN", "Infinity", "9" * rng.randint(20, 5000), "-0", "1e-400"]
            )
            + "}"
        )
        return text.encode()
    elif kind == 4:  # broken bytes or text
        raw = json.dumps(event).encode()
        cut = rng.randrange(len(raw))
        return rng.choice([raw[:cut], raw[:cut] + bytes(rng.randrange(256) for _ in range(20)),
                           b"\xff" * rng.randint(1, 100), b"[" * rng.randint(1, 3000)])  # fmt: skip
    elif kind == 5:  # not an object
        return json.dumps(rng.choice([[event], "s", 1, None, [[[]]]])).encode()
    else:  # plausible events with odd content
        event["tool_input"] = {"command": rng.choice(scalars[7:10]), "n": rng.choice(scalars)}
        event["tool_response"] = rng.choice(
            [*scalars, [{"type": "text", "text": "ok"}], {"stdout": 5}]
        )
        event["prompt"] = rng.choice(scalars[7:10])
    return json.dumps(event).encode()


def test_fuzzed_inputs_never_restart_the_service(tmp_path: Path, onlooker_home: Path) -> None:
    """A few hundred seeded inputs, one in ten through `onlooker hook` and the rest through
    the installed command, to one live service."""
    rng = random.Random(20)
    ok = json.dumps({**base(0, tmp_path), "tool_response": "fine"}).encode()
    assert send(INSTALLED, ok)[0].returncode == 0
    pid = running_pid(onlooker_home)
    slowest = (0.0, b"")
    for n in range(FUZZ_INPUTS):
        raw = fuzzed(rng, n, tmp_path)
        command = CLI if n % 10 == 0 else INSTALLED
        done, seconds = send(command, raw)
        assert done.returncode == 0, (n, done.stderr[-500:])
        assert done.stdout == b"" or json.loads(done.stdout), (n, done.stdout[:200])
        for _ in range(TRIES - 1):
            if seconds < SLOW:
                break
            again, took = send(command, raw)
            assert again.returncode == 0, (n, again.stderr[-500:])
            seconds = min(seconds, took)
        slowest = max(slowest, (seconds, raw[:120]))
    assert running_pid(onlooker_home) == pid
    assert slowest[0] < SLOW, slowest
    print(f"\n{FUZZ_INPUTS} fuzzed hooks, service pid {pid} throughout, slowest {slowest[0]:.2f} s")
    assert os.path.exists(onlooker_home / "spool")
