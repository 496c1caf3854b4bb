"""Plan Progress follows Claude Code's TodoWrite plan and explicit plan events, in its own texts."""

from __future__ import annotations

from onlooker import Engine, FixedClock, PlanStep, PlanUpdated, ToolCall
from onlooker.observers.plan_progress import PlanProgressObserver


def todos(*statuses: str) -> ToolCall:
    items = [
        {"content": f"Step {i + 1}", "status": s, "activeForm": f"Doing {i + 1}"}
        for i, s in enumerate(statuses)
    ]
    return ToolCall(
        tool="TodoWrite", input={"todos": items}, output="Todos have been modified successfully."
    )


def test_reports_after_a_step_completes(clock: FixedClock) -> None:
    engine = Engine([PlanProgressObserver()], clock=clock)
    assert engine.dispatch(todos("in_progress", "pending", "pending")).feedback == ""
    assert engine.dispatch(ToolCall(tool="Edit", input={"file_path": "a.py"})).feedback == ""
    assert engine.dispatch(todos("completed", "in_progress", "pending")).feedback == (
        "[Plan Progress] Completed 1/3 steps. 2 remaining. Next: Step 2"
    )


def test_all_steps_complete(clock: FixedClock) -> None:
    engine = Engine([PlanProgressObserver()], clock=clock)
    engine.dispatch(todos("completed", "in_progress"))
    assert engine.dispatch(todos("completed", "completed")).feedback == (
        "[Plan Progress] All 2 plan steps complete."
    )


def test_explicit_plan_events(clock: FixedClock) -> None:
    engine = Engine([PlanProgressObserver()], clock=clock)
    plan = PlanUpdated(
        steps=(PlanStep(content="Write parser", status="completed"), PlanStep(content="Test it"))
    )
    assert engine.dispatch(plan).feedback.endswith(
        "Completed 1/2 steps. 1 remaining. Next: Test it"
    )


def test_same_progress_is_not_repeated(clock: FixedClock) -> None:
    engine = Engine([PlanProgressObserver()], clock=clock)
    engine.dispatch(todos("in_progress", "pending"))
    assert engine.dispatch(todos("completed", "in_progress")).feedback
    engine.dispatch(
        PlanUpdated(
            steps=(
                PlanStep(content="Step 1", status="completed"),
                PlanStep(content="Step 2", status="in_progress"),
            )
        )
    )
    assert engine.session.tool_call_count == 2


def task_create(subject: str, task_id: str) -> ToolCall:
    return ToolCall(
        tool="TaskCreate",
        input={"subject": subject, "description": "…"},
        result={"task": {"id": task_id, "subject": subject}},
    )


def task_update(task_id: str, status: str, success: bool = True) -> ToolCall:
    return ToolCall(
        tool="TaskUpdate",
        input={"taskId": task_id, "status": status},
        result={"success": success, "taskId": task_id},
    )


def test_follows_taskcreate_and_taskupdate(clock: FixedClock) -> None:
    engine = Engine([PlanProgressObserver()], clock=clock)
    for i, subject in enumerate(["Write tests", "Fix model", "Update docs"], start=1):
        engine.dispatch(task_create(subject, str(i)))
    engine.dispatch(task_update("1", "in_progress"))
    assert engine.dispatch(task_update("1", "completed")).feedback.endswith(
        "Completed 1/3 steps. 2 remaining. Next: Fix model"
    )
    engine.dispatch(task_update("3", "deleted"))
    assert engine.dispatch(task_update("2", "completed")).feedback.endswith(
        "All 2 plan steps complete."
    )
    assert engine.dispatch(task_update("9", "completed", success=False)).feedback == ""
