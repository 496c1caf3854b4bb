"""Session slices, pure reducers, and snapshot/restore in O(1) of session length."""

from __future__ import annotations

import json

from onlooker import Plan, Session, SessionStarted, TaskContext, ToolCall, UserPrompt
from onlooker.core.slices import Replace, Slice


def todo(*statuses: str) -> ToolCall:
    todos = [
        {"content": f"step {i}", "status": s, "activeForm": f"doing {i}"}
        for i, s in enumerate(statuses)
    ]
    return ToolCall(tool="TodoWrite", input={"todos": todos})


def test_typed_slices_all_latest_where() -> None:
    session = Session("s")
    for i in range(5):
        session.append(ToolCall(tool="Read" if i % 2 else "Bash", input={"n": i}, ok=i != 3))
    calls = session[ToolCall]
    assert [c.index for c in calls.all()] == [1, 2, 3, 4, 5]
    assert calls.latest() is not None and calls.latest().input == {"n": 4}
    assert [c.input["n"] for c in calls.where(lambda c: not c.ok)] == [3]
    assert [c.seq for c in calls.all()] == [1, 2, 3, 4, 5]
    assert {c.session_id for c in calls.all()} == {"s"}


def test_plan_is_reduced_from_todowrite_and_requests_a_check_on_completion() -> None:
    session = Session("s")
    session.append(todo("in_progress", "pending"))
    assert session.take_requests() == ()
    plan = session[Plan].latest()
    assert plan is not None and (plan.completed, plan.total) == (0, 2)
    session.append(todo("completed", "in_progress"))
    assert session.take_requests() == ("plan_progress_check",)
    assert session[Plan].latest().next_step().content == "step 1"  # type: ignore[union-attr]


def test_task_context_keeps_the_first_prompt_and_first_files() -> None:
    session = Session("s")
    session.append(UserPrompt(text="Fix the parser in src/parse.py"))
    session.append(UserPrompt(text="also this"))
    for i in range(15):
        session.append(ToolCall(tool="Read", input={"file_path": f"/p/src/f{i}.py"}))
    task = session[TaskContext].latest()
    assert task is not None
    assert task.first_prompt == "Fix the parser in src/parse.py"
    assert task.first_paths[0] == "/p/src/f0.py" and len(task.first_paths) == 10


def test_reducers_are_pure_functions_of_view_and_event() -> None:
    from onlooker.core.plan import reduce_plan

    view: Slice[Plan] = Slice(1)
    first = reduce_plan(view, todo("pending"))
    again = reduce_plan(view, todo("pending"))
    assert first == again and isinstance(first, Replace)
    assert len(view) == 0


def test_snapshot_restores_state_without_replaying() -> None:
    session = Session("s")
    session.append(SessionStarted(cwd="/work/app"))
    session.append(UserPrompt(text="go"))
    session.append(todo("completed", "pending"))
    for i in range(30):
        session.append(ToolCall(tool="Bash", input={"command": f"echo {i}"}, output=str(i)))
    restored = Session.restore(json.loads(json.dumps(session.snapshot())))
    assert restored.tool_call_count == 31
    assert restored.seq == session.seq
    assert restored[ToolCall].all() == session[ToolCall].all()
    assert restored[Plan].latest() == session[Plan].latest()
    assert str(restored.project_root) == "/work/app"
    event = restored.append(ToolCall(tool="Bash"))
    assert (event.seq, event.index) == (session.seq + 1, 32)


def test_snapshot_size_does_not_grow_with_session_length() -> None:
    def snapshot_size(calls: int) -> int:
        session = Session("s")
        for i in range(calls):
            session.append(
                ToolCall(tool="Bash", input={"command": "make"}, output="x" * 50 + str(i))
            )
        return len(json.dumps(session.snapshot()))

    small, large = snapshot_size(1_000), snapshot_size(20_000)
    assert large < small * 1.05


def test_a_bare_slash_command_is_not_the_task() -> None:
    session = Session("s")
    session.append(UserPrompt(text="/clear"))
    session.append(UserPrompt(text="Add retries to the HTTP client"))
    task = session[TaskContext].latest()
    assert task is not None and task.first_prompt == "Add retries to the HTTP client"
