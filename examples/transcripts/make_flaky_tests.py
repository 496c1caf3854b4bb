"""Write flaky-tests.jsonl: a Claude Code session that loops, then cascades, then recovers.

The session is made up but every line has Claude Code's own shape (CC 2.0.x: envelope with uuid,
parentUuid, sessionId, cwd, version, gitBranch, timestamp; assistant messages split one content
block per line under one message id; tool results with is_error and toolUseResult). The story:

1. The user asks to fix a flaky test in `taskq`, a small job-queue library. The agent writes a
   TodoWrite plan, looks around, reads the scheduler and its tests, reproduces the failure.
2. It makes a guess (rounding in the scheduler), then runs the very same failing pytest command
   seven times in a row with the same output: a loop.
3. It flails: six failures in a row, four of them the same assertion with other numbers, files
   and test ids: an error cascade.
4. It steps back, reads `backoff.py`, finds the jitter added after the cap, fixes it, proves it
   with 30 repeated runs and the full suite, and finishes the plan.

Deterministic: ids come from a seeded random generator and times from a fixed start, so running
`python examples/transcripts/make_flaky_tests.py` again gives the same bytes.
"""

from __future__ import annotations

import json
import random
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("flaky-tests.jsonl")
CWD = "/home/dev/src/taskq"
SESSION_ID = "5f0c1f4e-6a58-4a1b-9c2e-7d4b3f1a9e20"
START = datetime(2026, 3, 3, 14, 0, 0, tzinfo=UTC)
MODEL = "claude-sonnet-4-5-20250929"
VERSION = "2.0.76"
BRANCH = "fix/flaky-backoff"

TASK = (
    "tests/test_scheduler.py::test_retry_backoff fails on CI about one run in three and passes "
    "locally most of the time. Find out why and fix the cause. Don't paper over it with retries "
    "or a looser assertion."
)

BACKOFF_PY = '''"""Retry delays with exponential backoff and jitter."""

import random


def backoff_delay(attempt: int, base: float = 0.1, cap: float = 0.4) -> float:
    """Seconds to wait before retry number `attempt` (1-based)."""
    delay = min(cap, base * 2 ** attempt)
    jitter = random.uniform(-0.25, 0.25) * delay
    return delay + jitter
'''

BACKOFF_FIXED = '''"""Retry delays with exponential backoff and jitter."""

import random


def backoff_delay(
    attempt: int, base: float = 0.1, cap: float = 0.4, rng: random.Random | None = None
) -> float:
    """Seconds to wait before retry number `attempt` (1-based); never more than `cap`."""
    delay = base * 2 ** attempt
    jitter = (rng or random).uniform(-0.25, 0.25) * delay
    return min(cap, max(0.0, delay + jitter))
'''

SCHEDULER_PY = '''"""When a failed job runs again."""

from dataclasses import dataclass

from .backoff import backoff_delay
from .clock import Clock


@dataclass
class Scheduler:
    clock: Clock
    max_attempts: int = 5
    base: float = 0.1
    cap: float = 0.4

    def next_run(self, job) -> float:
        if job.attempts >= self.max_attempts:
            raise RuntimeError(f"job {job.id} gave up after {job.attempts} attempts")
        return self.clock.now() + backoff_delay(job.attempts, self.base, self.cap)
'''

TEST_SCHEDULER_PY = """import pytest

from taskq.jobs import Job
from taskq.scheduler import Scheduler


@pytest.mark.parametrize("attempt", [1, 2, 3])
def test_retry_backoff(fake_clock, attempt):
    scheduler = Scheduler(fake_clock, base=0.1, cap=0.4)
    delay = scheduler.next_run(Job(id="j1", attempts=attempt)) - fake_clock.now()
    assert delay <= 0.4, f"retry delay {delay:.4f}s exceeds cap 0.4s"


def test_gives_up(fake_clock):
    with pytest.raises(RuntimeError):
        Scheduler(fake_clock).next_run(Job(id="j2", attempts=5))
"""

CONFTEST_PY = """import pytest

from taskq.clock import FakeClock


@pytest.fixture
def fake_clock():
    return FakeClock(start=1_700_000_000.0)
"""

TEST_BACKOFF_PY = """from taskq.backoff import backoff_delay


def test_first_retry_is_short():
    assert backoff_delay(1) < 0.3


def test_grows():
    assert backoff_delay(1, cap=10) < backoff_delay(4, cap=10) * 2
"""

CLOCK_PY = '''"""Time for the scheduler: the real clock, and a fake one for tests."""

import time


class Clock:
    def now(self) -> float:
        return time.time()


class FakeClock(Clock):
    def __init__(self, start: float = 0.0) -> None:
        self.current = start

    def now(self) -> float:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += seconds
'''

WORKER_PY = '''"""Runs jobs and puts failed ones back on the queue."""

from .scheduler import Scheduler


class Worker:
    def __init__(self, queue, scheduler: Scheduler):
        self.queue = queue
        self.scheduler = scheduler

    def run_once(self) -> None:
        job = self.queue.pop()
        try:
            job.run()
        except Exception:
            job.attempts += 1
            self.queue.push(job, at=self.scheduler.next_run(job))
'''


def pytest_failure(test: str, delay: str, *, passed: int, seconds: str, failed: int = 1) -> str:
    """pytest -q output for failing retry-delay assertions."""
    file, _, name = test.partition("::")
    dots = "." * passed + "F" * failed
    return (
        f"{dots:<60} [100%]\n"
        "=================================== FAILURES ===================================\n"
        f"_________________________ {name} _________________________\n\n"
        f"    def {name.split('[')[0]}(fake_clock, attempt):\n"
        "        scheduler = Scheduler(fake_clock, base=0.1, cap=0.4)\n"
        '        delay = scheduler.next_run(Job(id="j1", attempts=attempt)) - fake_clock.now()\n'
        '>       assert delay <= 0.4, f"retry delay {delay:.4f}s exceeds cap 0.4s"\n'
        f"E       AssertionError: retry delay {delay}s exceeds cap 0.4s\n"
        f"E       assert {delay} <= 0.4\n\n"
        f"{file}:11: AssertionError\n"
        "=========================== short test summary info ============================\n"
        f"FAILED {test} - AssertionError: retry delay {delay}s exceeds cap 0.4s\n"
        f"{failed} failed, {passed} passed in {seconds}s"
    )


def numbered(text: str) -> str:
    """File text the way Claude Code's Read tool shows it."""
    return "\n".join(f"{i:>6}→{line}" for i, line in enumerate(text.splitlines(), 1))


class Session:
    """Writes the lines of one session, keeping ids, parents and the clock consistent."""

    def __init__(self) -> None:
        self.rng = random.Random(20260303)
        self.lines: list[dict[str, Any]] = []
        self.now = START
        self.parent: str | None = None
        self.todos: list[dict[str, str]] = []

    def _id(self, prefix: str = "") -> str:
        if prefix:
            alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
            return prefix + "".join(self.rng.choice(alphabet) for _ in range(24))
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _stamp(self) -> str:
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def wait(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def _envelope(self, kind: str) -> dict[str, Any]:
        return {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SESSION_ID,
            "version": VERSION,
            "gitBranch": BRANCH,
            "type": kind,
        }

    def _add(self, line: dict[str, Any]) -> str:
        line["uuid"] = self._id()
        line["timestamp"] = self._stamp()
        self.lines.append(line)
        self.parent = line["uuid"]
        return line["uuid"]

    def snapshot(self) -> None:
        message_id = self._id()
        self.lines.append(
            {
                "type": "file-history-snapshot",
                "messageId": message_id,
                "snapshot": {
                    "messageId": message_id,
                    "trackedFileBackups": {},
                    "timestamp": self._stamp(),
                },
                "isSnapshotUpdate": False,
            }
        )

    def prompt(self, text: str) -> None:
        self.snapshot()
        line = self._envelope("user")
        line["message"] = {"role": "user", "content": text}
        line["thinkingMetadata"] = {"level": "high", "disabled": False, "triggers": []}
        line["todos"] = []
        self._add(line)

    def assistant(
        self,
        *,
        thinking: str = "",
        text: str = "",
        tool: str = "",
        input: dict[str, Any] | None = None,
        result: str = "",
        structured: Any = None,
        error: bool = False,
        seconds: float = 4.0,
        think_seconds: float = 22.0,
    ) -> None:
        """One assistant message (one line per content block), then the tool's result."""
        self.wait(think_seconds)
        message_id = self._id("msg_01")
        request_id = self._id("req_011C")
        blocks: list[dict[str, Any]] = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": thinking, "signature": self._id("Eq")})
        if text:
            blocks.append({"type": "text", "text": text})
        tool_id = self._id("toolu_01")
        if tool:
            blocks.append({"type": "tool_use", "id": tool_id, "name": tool, "input": input or {}})
        usage = {
            "input_tokens": self.rng.randint(4, 12),
            "cache_creation_input_tokens": self.rng.randint(200, 3000),
            "cache_read_input_tokens": 18000 + 900 * len(self.lines),
            "output_tokens": self.rng.randint(40, 600),
            "service_tier": "standard",
        }
        for block in blocks:
            line = self._envelope("assistant")
            line["message"] = {
                "model": MODEL,
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage,
            }
            line["requestId"] = request_id
            line.pop("type")
            line["type"] = "assistant"
            self._add(line)
            self.wait(0.4)
        if not tool:
            return
        self.wait(seconds)
        line = self._envelope("user")
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": result}
        if error:
            block["is_error"] = True
        elif tool not in ("TodoWrite",):
            block["is_error"] = False
        line["message"] = {"role": "user", "content": [block]}
        self._add(line)
        line["toolUseResult"] = structured

    # -- tools -----------------------------------------------------------------------------------

    def bash(
        self, command: str, description: str, output: str, *, code: int = 0, **kw: Any
    ) -> None:
        if code:
            shown = f"Exit code {code}\n{output}"
            self.assistant(
                tool="Bash",
                input={"command": command, "description": description},
                result=shown,
                structured=f"Error: {shown}",
                error=True,
                **kw,
            )
            return
        self.assistant(
            tool="Bash",
            input={"command": command, "description": description},
            result=output,
            structured={"stdout": output, "stderr": "", "interrupted": False, "isImage": False},
            **kw,
        )

    def failing_pytest(
        self, command: str, description: str, test: str, delay: str, **kw: Any
    ) -> None:
        """A pytest run that fails on the retry-delay assertion (exit code 1)."""
        passed, seconds = kw.pop("passed"), kw.pop("run_seconds")
        output = pytest_failure(test, delay, passed=passed, seconds=seconds)
        self.bash(command, description, output, code=1, **kw)

    def read(self, path: str, content: str, **kw: Any) -> None:
        full = f"{CWD}/{path}"
        lines = content.count("\n") + 1
        self.assistant(
            tool="Read",
            input={"file_path": full},
            result=numbered(content),
            structured={
                "type": "text",
                "file": {
                    "filePath": full,
                    "content": content,
                    "numLines": lines,
                    "startLine": 1,
                    "totalLines": lines,
                },
            },
            seconds=0.2,
            **kw,
        )

    def edit(self, path: str, old: str, new: str, *, original: str = "", **kw: Any) -> None:
        full = f"{CWD}/{path}"
        if original and old not in original:
            message = f"String to replace not found in file.\nString: {old}"
            self.assistant(
                tool="Edit",
                input={"file_path": full, "old_string": old, "new_string": new},
                result=f"<tool_use_error>{message}</tool_use_error>",
                structured=f"Error: {message}",
                error=True,
                seconds=0.2,
                **kw,
            )
            return
        updated = original.replace(old, new, 1)
        first = updated.splitlines().index(new.splitlines()[0]) + 1 if original else 1
        snippet = "\n".join(
            f"{i:>6}→{line}"
            for i, line in enumerate(updated.splitlines(), 1)
            if first - 3 <= i <= first + 4
        )
        self.assistant(
            tool="Edit",
            input={"file_path": full, "old_string": old, "new_string": new},
            result=(
                f"The file {full} has been updated. Here's the result of running `cat -n` on a "
                f"snippet of the edited file:\n{snippet}"
            ),
            structured={
                "filePath": full,
                "oldString": old,
                "newString": new,
                "originalFile": original,
                "structuredPatch": [
                    {
                        "oldStart": first,
                        "oldLines": old.count("\n") + 1,
                        "newStart": first,
                        "newLines": new.count("\n") + 1,
                        "lines": [f"-{x}" for x in old.splitlines()]
                        + [f"+{x}" for x in new.splitlines()],
                    }
                ],
                "userModified": False,
                "replaceAll": False,
            },
            seconds=0.3,
            **kw,
        )

    def plan(
        self, statuses: list[str], items: list[tuple[str, str]] | None = None, **kw: Any
    ) -> None:
        old = [dict(todo) for todo in self.todos]
        if items is not None:
            self.todos = [
                {"content": content, "status": "pending", "activeForm": active}
                for content, active in items
            ]
        for todo, status in zip(self.todos, statuses, strict=True):
            todo["status"] = status
        new = [dict(todo) for todo in self.todos]
        self.assistant(
            tool="TodoWrite",
            input={"todos": new},
            result=(
                "Todos have been modified successfully. Ensure that you continue to use the todo "
                "list to track your progress. Please proceed with the current tasks if applicable"
            ),
            structured={"oldTodos": old, "newTodos": new},
            seconds=0.1,
            **kw,
        )

    def write(self) -> None:
        with OUT.open("w", encoding="utf-8") as out:
            for line in self.lines:
                out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")


def story(s: Session) -> None:
    s.prompt(TASK)
    s.plan(
        ["in_progress", "pending", "pending", "pending"],
        [
            ("Reproduce the test_retry_backoff failure", "Reproducing the failure"),
            ("Find the root cause of the flakiness", "Finding the root cause"),
            ("Fix the cause and add a regression test", "Fixing the cause"),
            ("Run the full suite and lint", "Running the full suite"),
        ],
        thinking="A flaky test that passes locally and fails on CI one run in three. Likely "
        "randomness or time. I'll plan, look at the code, then reproduce.",
        text="I'll start by planning this out and reproducing the failure.",
    )
    s.bash(
        "git log --oneline -6",
        "Show recent commits",
        "9f2c1e4 Worker: requeue failed jobs with backoff\n"
        "41d07aa Add jitter to retry backoff\n"
        "c3b5e19 Scheduler: configurable cap\n"
        "77a0f2d FakeClock for tests\n"
        "0e8d9b1 Job dataclass and queue\n"
        "5a1c2f3 Initial commit",
    )
    s.assistant(
        tool="Glob",
        input={"pattern": "**/*.py"},
        result="\n".join(
            f"{CWD}/{p}"
            for p in (
                "src/taskq/__init__.py",
                "src/taskq/backoff.py",
                "src/taskq/clock.py",
                "src/taskq/jobs.py",
                "src/taskq/queue.py",
                "src/taskq/scheduler.py",
                "src/taskq/worker.py",
                "tests/conftest.py",
                "tests/test_backoff.py",
                "tests/test_integration.py",
                "tests/test_scheduler.py",
                "tests/test_worker.py",
            )
        ),
        structured={"filenames": [], "durationMs": 41, "numFiles": 12, "truncated": False},
        seconds=0.1,
    )
    s.read("src/taskq/scheduler.py", SCHEDULER_PY)
    s.read("tests/test_scheduler.py", TEST_SCHEDULER_PY)
    s.assistant(
        tool="Grep",
        input={"pattern": "backoff_delay", "output_mode": "content", "-n": True},
        result=(
            "src/taskq/backoff.py:6:def backoff_delay("
            "attempt: int, base: float = 0.1, cap: float = 0.4) -> float:\n"
            "src/taskq/scheduler.py:5:from .backoff import backoff_delay\n"
            "src/taskq/scheduler.py:18:        return self.clock.now() + "
            "backoff_delay(job.attempts, self.base, self.cap)\n"
            "tests/test_backoff.py:1:from taskq.backoff import backoff_delay"
        ),
        structured={"mode": "content", "numFiles": 3, "filenames": [], "numLines": 4},
        seconds=0.2,
    )
    s.read("tests/conftest.py", CONFTEST_PY)
    s.read("src/taskq/clock.py", CLOCK_PY)
    s.failing_pytest(
        "python -m pytest tests/test_scheduler.py -q",
        "Run the scheduler tests",
        "tests/test_scheduler.py::test_retry_backoff[3]",
        "0.4621",
        passed=3,
        run_seconds="0.31",
        text="Let me run the scheduler tests to reproduce the failure.",
        seconds=3.1,
    )
    s.plan(
        ["completed", "in_progress", "pending", "pending"],
        text="Reproduced on the first try: attempt 3 gets a delay of 0.4621s "
        "against a cap of 0.4s.",
    )
    s.read("src/taskq/worker.py", WORKER_PY)
    s.edit(
        "src/taskq/scheduler.py",
        "        return self.clock.now() + backoff_delay(job.attempts, self.base, self.cap)",
        "        delay = round(backoff_delay(job.attempts, self.base, self.cap), 3)\n"
        "        return self.clock.now() + delay",
        original=SCHEDULER_PY,
        thinking="The fake clock starts at 1.7e9; adding a small float to a large one loses "
        "precision, so now() + delay - now() may come out a little above the cap. Rounding the "
        "delay should keep it at or under 0.4.",
        text="This looks like floating-point error from adding a small delay to a large clock "
        "value. I'll round the delay in the scheduler.",
    )
    loop = "python -m pytest tests/test_scheduler.py::test_retry_backoff -q"
    words = [
        "Let me check whether that fixed it.",
        "Still failing. It's flaky, so let me run it again.",
        "Same failure. Running once more to see if it's intermittent.",
        "Let me run it again.",
        "Once more.",
        "Let me try again to see if it passes this time.",
        "Running the test again.",
    ]
    for i, text in enumerate(words):
        s.failing_pytest(
            loop,
            "Run the retry backoff test",
            "tests/test_scheduler.py::test_retry_backoff[3]",
            "0.4621",
            passed=2,
            run_seconds="0.29",
            text=text,
            seconds=2.8,
            think_seconds=14.0 + 4 * i,
        )
    s.failing_pytest(
        "python -m pytest tests/test_scheduler.py -q",
        "Run all scheduler tests",
        "tests/test_scheduler.py::test_retry_backoff[2]",
        "0.4388",
        passed=3,
        run_seconds="0.33",
        text="Maybe it's only some parameters. Let me run the whole file.",
        seconds=3.0,
    )
    s.failing_pytest(
        "python -m pytest tests/test_worker.py -q",
        "Run the worker tests",
        "tests/test_worker.py::test_requeue_after_failure[4]",
        "0.5310",
        passed=5,
        run_seconds="0.41",
        text="Let me check whether the worker tests see it too.",
        seconds=3.2,
    )
    s.edit(
        "tests/test_scheduler.py",
        "    assert delay <= 0.4 + 1e-9",
        "    assert delay <= 0.4 + 1e-6",
        original=TEST_SCHEDULER_PY,
        text="I'll widen the float tolerance in the assertion slightly.",
    )
    s.failing_pytest(
        "python -m pytest tests/test_integration.py -q -k retry",
        "Run the retry integration tests",
        "tests/test_integration.py::test_retry_chain[jobs=12]",
        "0.4477",
        passed=7,
        run_seconds="1.12",
        text="The edit didn't apply. Let me look at the integration tests for retries first.",
        seconds=4.0,
    )
    s.failing_pytest(
        "python -m pytest tests/ -q -x",
        "Run the whole suite, stop at first failure",
        "tests/test_backoff.py::test_cap_respected[5]",
        "0.4902",
        passed=41,
        run_seconds="2.07",
        seconds=5.0,
    )
    s.bash(
        "python -m pytest tests/test_scheduler.py --count 20 -q",
        "Repeat the scheduler tests 20 times",
        "ERROR: usage: __main__.py [options] [file_or_dir] [file_or_dir] [...]\n"
        "__main__.py: error: unrecognized arguments: --count\n"
        "  inifile: /home/dev/src/taskq/pyproject.toml\n"
        "  rootdir: /home/dev/src/taskq",
        code=4,
        seconds=1.5,
    )
    s.read(
        "src/taskq/backoff.py",
        BACKOFF_PY,
        thinking="I have been re-running tests and tweaking the assertion without looking at where "
        "the delay comes from. Every failure is the same: a delay above the cap, by up to 25%. "
        "That is the jitter size, not float error.",
        text="I've been going in circles. Every failure is a delay above the cap by up to 25%, "
        "which is far too big for floating-point error. Let me read how the delay is computed.",
        think_seconds=20.0,
    )
    s.bash(
        "git show 41d07aa --stat && git show 41d07aa -- src/taskq/backoff.py | tail -8",
        "Show the commit that added jitter",
        "commit 41d07aa\nAuthor: Dev <dev@example.com>\n\n    Add jitter to retry backoff\n\n"
        " src/taskq/backoff.py | 4 +++-\n 1 file changed, 3 insertions(+), 1 deletion(-)\n"
        "@@ -5,4 +5,6 @@ def backoff_delay("
        "attempt: int, base: float = 0.1, cap: float = 0.4) -> float:\n"
        "     delay = min(cap, base * 2 ** attempt)\n"
        "-    return delay\n"
        "+    jitter = random.uniform(-0.25, 0.25) * delay\n"
        "+    return delay + jitter",
    )
    s.bash(
        "python -c 'from taskq.backoff import backoff_delay; "
        "print(max(backoff_delay(3) for _ in range(10000)))'",
        "Largest delay for attempt 3 over 10,000 draws",
        "0.4999412283126471",
        text="Let me confirm with the numbers: the largest of 10,000 delays for attempt 3.",
        seconds=1.2,
    )
    s.plan(
        ["completed", "completed", "in_progress", "pending"],
        text="Found it. The jitter is added after the cap, so once the delay reaches the cap, "
        "any positive jitter pushes it over: the test fails whenever the random draw is above "
        "zero for a capped attempt. My rounding change was wrong; I'll revert it.",
    )
    s.edit(
        "src/taskq/scheduler.py",
        "        delay = round(backoff_delay(job.attempts, self.base, self.cap), 3)\n"
        "        return self.clock.now() + delay",
        "        return self.clock.now() + backoff_delay(job.attempts, self.base, self.cap)",
        original=SCHEDULER_PY.replace(
            "        return self.clock.now() + backoff_delay(job.attempts, self.base, self.cap)",
            "        delay = round(backoff_delay(job.attempts, self.base, self.cap), 3)\n"
            "        return self.clock.now() + delay",
        ),
    )
    s.edit(
        "src/taskq/backoff.py",
        BACKOFF_PY.split("\n\n\n")[1],
        BACKOFF_FIXED.split("\n\n\n")[1],
        original=BACKOFF_PY,
        text="Now the fix: apply the cap after the jitter, and let callers pass a seeded "
        "random generator so tests can be deterministic.",
    )
    s.read("tests/test_backoff.py", TEST_BACKOFF_PY)
    s.edit(
        "tests/test_backoff.py",
        "def test_grows():",
        "def test_never_exceeds_cap():\n"
        "    rng = random.Random(7)\n"
        "    for attempt in range(1, 10):\n"
        "        for _ in range(200):\n"
        "            assert 0 <= backoff_delay(attempt, cap=0.4, rng=rng) <= 0.4\n\n\n"
        "def test_grows():",
        original=TEST_BACKOFF_PY,
        text="Adding a regression test that draws many jittered delays for every attempt.",
    )
    s.edit(
        "tests/test_backoff.py",
        "from taskq.backoff import backoff_delay",
        "import random\n\nfrom taskq.backoff import backoff_delay",
        original=TEST_BACKOFF_PY,
    )
    s.bash(
        "python -c 'from taskq.backoff import backoff_delay; "
        "print(max(backoff_delay(3) for _ in range(10000)))'",
        "Largest delay for attempt 3 over 10,000 draws",
        "0.4",
        seconds=1.2,
    )
    s.bash(
        "python -m pytest tests/test_backoff.py -q",
        "Run the backoff tests",
        "...                                                                      [100%]\n"
        "3 passed in 0.08s",
        seconds=2.2,
    )
    s.bash(
        "python -m pytest tests/test_scheduler.py tests/test_worker.py -q",
        "Run scheduler and worker tests",
        "..........                                                               [100%]\n"
        "10 passed in 0.52s",
        seconds=3.0,
    )
    s.bash(
        "for i in $(seq 1 30); do python -m pytest tests/test_scheduler.py -q -p no:cacheprovider "
        '>/dev/null || echo "run $i failed"; done; echo done',
        "Run the scheduler tests 30 times",
        "done",
        text="Running the formerly flaky tests 30 times to be sure.",
        seconds=38.0,
    )
    s.plan(["completed", "completed", "completed", "in_progress"])
    s.bash(
        "python -m pytest -q",
        "Run the full test suite",
        "........................................................................ [ 56%]\n"
        "........................................................                 [100%]\n"
        "128 passed in 4.21s",
        seconds=6.0,
    )
    s.bash("ruff check src tests", "Lint", "All checks passed!")
    s.bash(
        "git diff --stat",
        "Show the change",
        " src/taskq/backoff.py  | 10 +++++++---\n tests/test_backoff.py |  9 +++++++++\n"
        " 2 files changed, 16 insertions(+), 3 deletions(-)",
    )
    s.plan(["completed", "completed", "completed", "completed"])
    s.assistant(
        text="Fixed. The flakiness came from `backoff_delay` adding jitter after applying the cap: "
        "for capped attempts any positive jitter pushed the delay above 0.4s, so "
        "`test_retry_backoff` failed whenever the random draw was positive.\n\n"
        "- `src/taskq/backoff.py`: jitter first, then clamp to `[0, cap]`; optional `rng` "
        "argument for deterministic tests.\n"
        "- `tests/test_backoff.py`: `test_never_exceeds_cap` checks 1,800 jittered delays.\n\n"
        "The scheduler tests passed 30 runs in a row and the full suite passes (128 tests). "
        "I reverted my earlier rounding change in the scheduler: it was a wrong guess.",
    )
    s.lines.append(
        {
            **s._envelope("system"),
            "subtype": "turn_duration",
            "durationMs": int((s.now - START).total_seconds() * 1000),
            "isMeta": False,
            "timestamp": s._stamp(),
            "uuid": s._id(),
        }
    )


def main() -> None:
    session = Session()
    story(session)
    session.write()
    calls = sum(1 for line in session.lines if "toolUseResult" in line)
    print(
        f"wrote {OUT} ({len(session.lines)} lines, {calls} tool calls, "
        f"{(session.now - START).total_seconds() / 60:.1f} minutes)"
    )


if __name__ == "__main__":
    main()
