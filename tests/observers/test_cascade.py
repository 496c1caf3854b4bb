"""Error Cascade: consecutive failures and recurring similar errors, normalised and escalating."""

from __future__ import annotations

import pytest

from onlooker import Dispatch, Engine, FixedClock, Session, ToolCall
from onlooker.observers import get_observer
from onlooker.observers.cascade import (
    ErrorCascadeObserver,
    error_signature,
    failure_count,
    is_failure,
    key_line,
)


def failed(command: str, error: str, tool: str = "Bash") -> ToolCall:
    return ToolCall(tool=tool, input={"command": command}, ok=False, error=error)


def passed(command: str = "ls") -> ToolCall:
    return ToolCall(tool="Bash", input={"command": command}, output="ok")


def engine(clock: FixedClock) -> Engine:
    return Engine([ErrorCascadeObserver()], session=Session("s"), clock=clock)


def feed(target: Engine, *calls: ToolCall) -> list[Dispatch]:
    return [target.dispatch(call) for call in calls]


def severities(results: list[Dispatch]) -> list[str | None]:
    return [r.assessments[0].severity if r.assessments else None for r in results]


def test_four_failures_in_a_row_warn(clock: FixedClock) -> None:
    target = engine(clock)
    results = feed(
        target,
        passed(),
        failed("psql -c 'select 1'", "Exit code 127\n(eval):1: command not found: psql"),
        failed("docker ps", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock."),
        failed("cat db.env", "cat: db.env: No such file or directory"),
    )
    assert severities(results) == [None, None, None, None]
    result = target.dispatch(failed("pg_ctl status", "pg_ctl: no database directory specified"))
    assert result.assessments[0].render() == (
        "[Trajectory Assessment - Error Cascade]\n\n"
        "4 tool calls in a row have failed.\n\n"
        "• consecutive failures: The last 4 tool calls failed (calls 2, 3, 4, 5); the latest, "
        "Bash `pg_ctl status`: pg_ctl: no database directory specified\n\n"
        "→ 4 consecutive calls have failed; the approach may need reassessing before another attempt."
    )


def test_severity_escalates_with_the_streak(clock: FixedClock) -> None:
    target = engine(clock)
    results = feed(target, *(failed(f"step{n}", f"error {n}: boom{'!' * n}") for n in range(12)))
    assert severities(results) == [
        None, None, None, "medium", None, "high", None, None, None, None, "high", None
    ]  # fmt: skip


def test_a_success_ends_the_streak(clock: FixedClock) -> None:
    target = engine(clock)
    results = feed(
        target,
        failed("a", "AError"),
        failed("b", "BError"),
        passed(),
        failed("c", "CError"),
        failed("d", "DError"),
    )
    assert severities(results) == [None] * 5


def test_similar_errors_group_together(clock: FixedClock) -> None:
    target = engine(clock)
    results = feed(
        target,
        failed("python load.py a1", "FileNotFoundError: /tmp/a1.txt"),
        passed("ls /tmp"),
        failed("python load.py b2", "FileNotFoundError: /tmp/b2.txt"),
        passed("touch /tmp/c3.txt"),
        failed("python load.py c3", "FileNotFoundError: /tmp/c3.txt"),
        passed("touch /tmp/d4.txt"),
        failed("python load.py d4", "FileNotFoundError: /tmp/d4.txt"),
    )
    assert severities(results) == [None, None, None, None, None, None, "medium"]
    assert results[6].assessments[0].render() == (
        "[Trajectory Assessment - Error Cascade]\n\n"
        "The same error has come back 4 times.\n\n"
        "• recurring error: The same error occurred 4 times (calls 1, 3, 5, 7): "
        "FileNotFoundError: /tmp/d4.txt\n\n"
        "→ The same error has recurred 4 times; the attempts so far have not reached its cause, "
        "and stepping back to reassess may serve better than another retry."
    )


def test_a_streak_of_one_error_is_reported_as_a_recurring_error(clock: FixedClock) -> None:
    target = engine(clock)
    traceback = (
        "Exit code 1\nTraceback (most recent call last):\n"
        '  File "/p/run.py", line {n}, in <module>\n'
        "ModuleNotFoundError: No module named 'torch{n}'"
    )
    results = feed(target, *(failed("python run.py", traceback.format(n=n)) for n in range(4)))
    assert severities(results) == [None, None, None, "medium"]
    assert [f.category for f in results[3].assessments[0].findings] == ["recurring error"]
    assert "No module named 'torch3'" in results[3].feedback


def test_user_rejections_and_silent_exit_1_are_not_failures(clock: FixedClock) -> None:
    rejected = failed(
        "git push",
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
    )
    no_match = failed("grep -rn needle src", "Exit code 1")
    assert not is_failure(rejected)
    assert not is_failure(no_match)
    assert not is_failure(passed())
    target = engine(clock)
    assert all(not r.assessments for r in feed(target, rejected, no_match, rejected, no_match))


def cancelled(command: str) -> ToolCall:
    """A parallel call Claude Code cancelled because a sibling call failed."""
    return failed(command, "<tool_use_error>Sibling tool call errored</tool_use_error>")


def test_calls_cancelled_by_a_failing_sibling_are_passed_over(clock: FixedClock) -> None:
    assert not is_failure(cancelled("npm test"))
    target = engine(clock)
    batch = [failed("npm run build", "error TS2322: Type 'string' is not assignable")]
    batch += [cancelled(f"npm run check{n}") for n in range(5)]
    assert all(not r.assessments for r in feed(target, *batch, *batch))
    # They neither count in a streak nor break it.
    results = feed(
        target,
        failed("npx tsc", "error TS5058: The specified path does not exist"),
        cancelled("npm test"),
        failed("npm run lint", "ESLint couldn't find a config"),
    )
    assert severities(results) == [None, None, "medium"]
    assert "The last 4 tool calls that ran failed (calls 1, 7, 13, 15)" in results[2].feedback


def pytest_failing(count: int) -> str:
    failures = "\n".join(
        f"FAILED tests/test_cart.py::test_{n} - TypeError: bad operand" for n in range(count)
    )
    return f"{'F' * count}....\n{failures}\n{count} failed, 4 passed in 0.{count}2s"


def test_a_falling_failure_count_is_progress_until_it_stops_falling(clock: FixedClock) -> None:
    target = engine(clock)
    falling = [failed("pytest -q", pytest_failing(n)) for n in (5, 4, 4, 3, 2, 1)]
    assert all(not r.assessments for r in feed(target, *falling))
    results = feed(target, *(failed("pytest -q", pytest_failing(1)) for _ in range(3)))
    assert severities(results) == [None, None, "medium"]
    assert "The same error occurred 4 times (calls 6, 7, 8, 9)" in results[2].feedback


def test_an_error_the_same_call_got_past_is_not_recurring(clock: FixedClock) -> None:
    """Test-first work: each new test fails on a missing name, then passes."""
    target = engine(clock)
    for name in ("slugify", "truncate", "titlecase", "dedent", "indent"):
        command = f"pytest tests/test_{name}.py"
        error = f"ImportError: cannot import name '{name}' from 'text'"
        assert not feed(target, failed(command, error), passed(command))[0].assessments


def test_failure_counts_from_summary_lines() -> None:
    def count(text: str) -> int | None:
        return failure_count(failed("x", text))

    assert count(pytest_failing(3)) == 3
    assert count("...\n2 failed, 10 passed, 1 error in 0.51s") == 3
    assert count("src/a.py:3: error: Missing type\nFound 9 errors in 3 files (checked 14)") == 9
    assert count("Tests:       2 failed, 10 passed, 12 total") == 2
    assert count("ModuleNotFoundError: No module named 'yaml'") is None


def test_signatures_ignore_what_varies() -> None:
    def same(a: str, b: str) -> bool:
        return error_signature(failed("x", a)) == error_signature(failed("x", b))

    assert same("FileNotFoundError: /tmp/a1.txt", "FileNotFoundError: /tmp/b2.txt")
    assert same(
        "FileNotFoundError: [Errno 2] No such file or directory: 'data/a.csv'",
        "FileNotFoundError: [Errno 2] No such file or directory: 'out/b.csv'",
    )
    assert same("src/a.py:12:5: E501 line too long", "src/b.py:40:1: E501 line too long")
    assert same(
        "KeyError: run 3f2a9c1e-8b7d-4c6a-9e0f-1a2b3c4d5e6f not found",
        "KeyError: run 0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e not found",
    )
    assert same(
        "object at 0x7f3a2b1c0d90 is not callable", "object at 0x7f00deadbeef is not callable"
    )
    assert not same("FileNotFoundError: /tmp/a1.txt", "PermissionError: /tmp/a1.txt")


def test_the_key_line_is_the_exception_not_the_traceback() -> None:
    text = (
        "Exit code 1\nTraceback (most recent call last):\n"
        '  File "x.py", line 3, in <module>\n    import torch\n'
        "ModuleNotFoundError: No module named 'torch'"
    )
    assert key_line(text) == "ModuleNotFoundError: No module named 'torch'"
    assert key_line("Exit code 127\n/bin/bash: line 1: python: command not found") == (
        "/bin/bash: line 1: python: command not found"
    )
    assert key_line("<tool_use_error>File does not exist.</tool_use_error>") == (
        "File does not exist."
    )


def test_only_failures_wake_it(clock: FixedClock) -> None:
    observer = ErrorCascadeObserver()
    target = engine(clock)
    for _ in range(5):
        assert not target.dispatch(passed()).assessments
    assert get_observer("error-cascade") == observer
    assert get_observer("cascade") == get_observer("Error Cascade") == observer
    assert observer.name == "Error Cascade"


def test_bad_settings_fail_when_built() -> None:
    with pytest.raises(ValueError, match="recurring_escalate"):
        ErrorCascadeObserver(recurring_warn=5, recurring_escalate=5)
