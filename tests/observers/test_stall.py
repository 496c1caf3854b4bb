"""Stall judges repeated calls together with their results, and catches thrashing and undone edits."""

from __future__ import annotations

import pytest

from onlooker import Dispatch, Engine, FixedClock, Session, ToolCall, UserPrompt
from onlooker.core.events import Event
from onlooker.observers import get_observer
from onlooker.observers.stall import StallObserver, call_key, is_polling, normalized_result


def bash(command: str, output: str = "", ok: bool = True) -> ToolCall:
    return ToolCall(
        tool="Bash",
        input={"command": command, "description": "Run it"},
        output=output if ok else "",
        ok=ok,
        error=None if ok else output,
    )


def read(path: str, content: str = "x = 1\n") -> ToolCall:
    return ToolCall(tool="Read", input={"file_path": path}, output=content)


def edit(path: str, old: str, new: str) -> ToolCall:
    return ToolCall(
        tool="Edit",
        input={"file_path": path, "old_string": old, "new_string": new},
        output=f"The file {path} has been updated successfully.",
    )


def write(path: str, content: str) -> ToolCall:
    return ToolCall(
        tool="Write",
        input={"file_path": path, "content": content},
        output=f"File created successfully at: {path}",
    )


def engine(clock: FixedClock, observer: StallObserver | None = None) -> Engine:
    return Engine([observer or StallObserver()], session=Session("s"), clock=clock)


def feed(target: Engine, *events: Event) -> list[Dispatch]:
    return [target.dispatch(event) for event in events]


def severities(results: list[Dispatch]) -> list[str | None]:
    return [r.assessments[0].severity if r.assessments else None for r in results]


def failing_tests(seconds: str) -> ToolCall:
    return bash(
        "pytest -q",
        f"F...\nFAILED tests/test_a.py::test_one - AssertionError\n1 failed, 3 passed in {seconds}s",
        ok=False,
    )


def test_same_call_same_result_warns_on_the_fourth_citing_the_calls(clock: FixedClock) -> None:
    target = engine(clock)
    results = feed(target, *(failing_tests(s) for s in ("0.53", "0.61", "0.48")))
    assert [r.feedback for r in results] == ["", "", ""]
    assert target.dispatch(failing_tests("0.50")).assessments[0].render() == (
        "[Trajectory Assessment - Stall]\n\n"
        "The same call keeps failing the same way.\n\n"
        "• repeated call: Bash `pytest -q` failed with the same error 4 times (calls 1, 2, 3, 4).\n\n"
        "→ The same call has failed 4 times with the same error; a different approach may be needed."
    )


def test_repeats_with_other_calls_between_still_count(clock: FixedClock) -> None:
    target = engine(clock)
    events: list[Event] = []
    for n in range(4):
        events += [failing_tests("0.5"), edit("src/a.py", f"v{n}", f"v{n + 1}")]
    results = feed(target, *events)
    warned = [r for r in results if r.assessments]
    assert len(warned) == 1
    assert "(calls 1, 3, 5, 7)" in warned[0].feedback


def test_a_passing_check_after_each_edit_is_verification(clock: FixedClock) -> None:
    target = engine(clock)
    events: list[Event] = []
    for n in range(6):
        events += [
            edit("/p/src/a.py", f"v{n}", f"v{n + 1}"),
            bash("pytest -q", "12 passed in 0.4s"),
        ]
    assert all(not r.assessments for r in feed(target, *events))


def test_escalates_to_high_and_then_only_every_five_more(clock: FixedClock) -> None:
    target = engine(clock)
    results = feed(target, *(bash("make check", "same") for _ in range(16)))
    levels = severities(results)
    assert {i + 1: level for i, level in enumerate(levels) if level} == {
        4: "medium",
        6: "high",
        11: "high",
        16: "high",
    }
    assert "returned the same result 6 times" in results[5].feedback


def test_an_episode_longer_than_the_window_keeps_counting(clock: FixedClock) -> None:
    target = engine(clock, StallObserver(window=8))
    results = feed(target, *(bash("ls", "a b") for _ in range(21)))
    reported = {
        i + 1: r.assessments[0].findings[0].content for i, r in enumerate(results) if r.assessments
    }
    assert sorted(reported) == [4, 6, 11, 16, 21]
    assert "21 times" in reported[21]
    assert (
        reported[21] == "Bash `ls` returned the same result 21 times (calls 14-21 and 13 earlier)."
    )


def test_a_falling_test_count_is_progress(clock: FixedClock) -> None:
    target = engine(clock)
    outputs = [f"{n} failed, {10 - n} passed in 0.{n}1s" for n in (5, 5, 4, 3, 3, 2, 1, 1)]
    results = feed(target, *(bash("pytest -q", out, ok=False) for out in outputs))
    assert all(not r.assessments for r in results)


def test_a_moving_ci_status_is_progress(clock: FixedClock) -> None:
    target = engine(clock)
    statuses = ["queued", "queued", "in_progress", "in_progress", "in_progress", "completed"]
    command = "sleep 30 && gh run view 4242 --json status -q .status"
    results = feed(target, *(bash(command, status) for status in statuses))
    assert all(not r.assessments for r in results)


def test_polling_an_unchanging_status_warns_much_later(clock: FixedClock) -> None:
    target = engine(clock)
    command = "sleep 30 && gh run view 4242 --json status -q .status"
    results = feed(target, *(bash(command, "in_progress") for _ in range(12)))
    assert severities(results).index("medium") == 11
    assert results[11].assessments[0].render() == (
        "[Trajectory Assessment - Stall]\n\n"
        "A polled status is not changing.\n\n"
        "• repeated call: Bash `sleep 30 && gh run view 4242 --json status -q .status` returned the "
        "same status 12 times (calls 1-12).\n\n"
        "→ Polling has returned the same status 12 times; the awaited change may not be coming."
    )


def test_calls_cancelled_by_a_failing_sibling_are_no_repeats(clock: FixedClock) -> None:
    target = engine(clock)
    cancelled = bash(
        "ruff check src", "<tool_use_error>Sibling tool call errored</tool_use_error>", ok=False
    )
    results = feed(
        target, *([failing_tests("0.5"), cancelled] * 3), cancelled, failing_tests("0.4")
    )
    assert severities(results) == [None] * 7 + ["medium"]
    assert "4 times (calls 1, 3, 5, 8)" in results[-1].feedback


def test_a_changed_result_ends_the_run_of_repeats(clock: FixedClock) -> None:
    target = engine(clock)
    outputs = ["one", "one", "one", "two", "two", "two"]
    results = feed(target, *(bash("cat notes.txt", out) for out in outputs))
    assert all(not r.assessments for r in results)


def test_result_noise_is_normalised_but_counts_are_kept() -> None:
    first = bash("x", "ok at 2026-01-02T03:04:05Z in 0.53s, pid 4121, /tmp/pytest-of-u/pytest-7/x")
    again = bash("x", "ok at 2026-03-09T10:11:12Z in 1.2s, pid 977, /tmp/pytest-of-u/pytest-9/x")
    assert normalized_result(first) == normalized_result(again)
    assert normalized_result(bash("x", "5 failed")) != normalized_result(bash("x", "3 failed"))


def test_the_key_is_the_tool_and_its_essential_input() -> None:
    assert call_key(bash("ls")) == call_key(
        ToolCall(tool="Bash", input={"description": "List again", "command": "ls"})
    )
    assert call_key(bash("ls")) != call_key(bash("ls -a"))
    assert call_key(read("a.py")) != call_key(ToolCall(tool="Write", input={"file_path": "a.py"}))


def test_polling_commands() -> None:
    assert is_polling(bash("sleep 10; gh pr checks 12"))
    assert is_polling(bash("gh run watch 99"))
    assert is_polling(ToolCall(tool="BashOutput", input={"bash_id": "b1"}))
    assert not is_polling(bash("pytest -q"))


def test_read_write_thrashing_on_one_file(clock: FixedClock) -> None:
    target = engine(clock)
    events: list[Event] = [UserPrompt(text="Fix the parser")]
    for n in range(5):
        events += [
            read("/p/src/parser.py", f"v{n}"),
            edit("/p/src/parser.py", f"v{n}", f"v{n + 1}"),
        ]
    results = [r for r in feed(target, *events) if r.assessments]
    assert [(r.event.index, r.assessments[0].severity) for r in results] == [
        (6, "medium"),
        (10, "high"),
    ]
    assert results[0].assessments[0].render() == (
        "[Trajectory Assessment - Stall]\n\n"
        "parser.py keeps being read and rewritten in turn.\n\n"
        "• thrashing: parser.py was read and rewritten in turn 3 times (calls 1-6).\n\n"
        "→ 3 read-then-write rounds on parser.py have not settled it; the change it needs may "
        "depend on something outside this file."
    )


def test_working_through_a_file_part_by_part_is_not_thrashing(clock: FixedClock) -> None:
    target = engine(clock)
    events: list[Event] = [UserPrompt(text="Tidy up big.py")]
    for n in range(5):
        part = ToolCall(
            tool="Read", input={"file_path": "/p/big.py", "offset": 200 * n, "limit": 200}
        )
        events += [part, edit("/p/big.py", f"old{n}", f"new{n}")]
    assert all(not r.assessments for r in feed(target, *events))


def test_rounds_the_user_asked_for_are_not_thrashing(clock: FixedClock) -> None:
    target = engine(clock)
    events: list[Event] = []
    for n in range(5):
        events += [
            UserPrompt(text=f"Now change it to v{n + 1}"),
            read("/p/app.py", f"v{n}"),
            edit("/p/app.py", f"v{n}", f"v{n + 1}"),
        ]
    assert all(not r.assessments for r in feed(target, *events))


def test_edits_that_undo_each_other(clock: FixedClock) -> None:
    target = engine(clock)
    path = "/p/src/config.py"
    results = feed(
        target,
        read(path),
        edit(path, "retries = 3", "retries = 5"),
        edit(path, "retries = 5", "retries = 3"),
        edit(path, "retries = 3", "retries = 5"),
        edit(path, "retries = 5", "retries = 3"),
    )
    assert severities(results) == [None, None, "low", "medium", "high"]
    assert results[3].assessments[0].render() == (
        "[Trajectory Assessment - Stall]\n\n"
        "Edits to config.py are going back and forth.\n\n"
        "• undone edit: Edits to config.py undo earlier edits (call 3 undid call 2; "
        "call 4 undid call 3).\n\n"
        "→ config.py has returned to an earlier state 2 times; the edits in between did not hold."
    )


def test_write_a_write_b_write_a(clock: FixedClock) -> None:
    target = engine(clock)
    path = "/p/out.json"
    results = feed(target, write(path, "A"), write(path, "B"), write(path, "A"), write(path, "B"))
    assert severities(results) == [None, None, "low", "medium"]
    assert "call 3 undid call 2" in results[2].feedback


def test_rewriting_the_same_content_is_not_an_undo(clock: FixedClock) -> None:
    target = engine(clock)
    path = "/p/out.json"
    results = feed(target, write(path, "A"), write(path, "A"), edit(path, "A", "B"))
    assert all(not r.assessments for r in results)


def test_an_undo_the_user_asked_for_is_not_reported(clock: FixedClock) -> None:
    target = engine(clock)
    path = "/p/a.py"
    results = feed(
        target,
        edit(path, "x = 1", "x = 2"),
        UserPrompt(text="Please revert that"),
        edit(path, "x = 2", "x = 1"),
    )
    assert all(not r.assessments for r in results)


def test_configured_by_name() -> None:
    observer = get_observer("stall")
    assert isinstance(observer, StallObserver)
    assert observer.name == "Stall"
    assert StallObserver(window=8).window == 8


def test_bad_settings_fail_when_built() -> None:
    with pytest.raises(ValueError, match="repeat_escalate"):
        StallObserver(repeat_warn=6, repeat_escalate=4)
    with pytest.raises(ValueError, match="window must be a whole number"):
        StallObserver(window=0)


def test_each_call_in_a_fresh_process_counts_the_same(clock: FixedClock) -> None:
    """Claude Code runs every hook in a new process: state comes back from a session snapshot."""
    snapshot = Session("s").snapshot()
    levels = []
    for _ in range(11):
        session = Session.restore(snapshot)
        result = Engine([StallObserver()], session=session, clock=clock).dispatch(bash("ls", "a"))
        levels.append(result.assessments[0].severity if result.assessments else None)
        snapshot = session.snapshot()
    assert {i + 1: level for i, level in enumerate(levels) if level} == {
        4: "medium",
        6: "high",
        11: "high",
    }
