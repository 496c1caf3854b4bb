"""The agent's plan: from TodoWrite or TaskCreate/TaskUpdate calls, and PlanUpdated events.

When a step gets completed the reducer requests a `plan_progress_check` (specs/session.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .events import PlanStep, PlanUpdated, ToolCall
from .records import Record, record
from .slices import Reduced, Replace, Request, Slice

PLAN_PROGRESS_CHECK = "plan_progress_check"
"""Marker name requested when a plan step is completed."""

PLAN_TOOLS = frozenset({"TodoWrite", "TaskCreate", "TaskUpdate"})


@record("plan")
@dataclass(frozen=True, slots=True, kw_only=True)
class Plan(Record):
    """The plan as it stands: ordered steps with their status."""

    steps: tuple[PlanStep, ...] = ()

    @property
    def completed(self) -> int:
        return sum(1 for step in self.steps if step.done)

    @property
    def total(self) -> int:
        return len(self.steps)

    @property
    def remaining(self) -> int:
        return self.total - self.completed

    def next_step(self) -> PlanStep | None:
        """The step in progress, else the first one not done."""
        for step in self.steps:
            if step.status == "in_progress":
                return step
        return next((step for step in self.steps if not step.done), None)


def steps_from_todos(todos: Any) -> tuple[PlanStep, ...]:
    """Plan steps from a TodoWrite `todos` list; entries that are not todos are ignored."""
    if not isinstance(todos, list):
        return ()
    steps = []
    for todo in todos:
        if isinstance(todo, dict) and isinstance(todo.get("content"), str):
            steps.append(
                PlanStep(
                    content=todo["content"],
                    status=str(todo.get("status") or "pending"),
                    active_form=str(todo.get("activeForm") or ""),
                )
            )
    return tuple(steps)


def reduce_plan(view: Slice[Plan], event: ToolCall | PlanUpdated) -> Reduced:
    if isinstance(event, ToolCall) and (event.tool not in PLAN_TOOLS or not event.ok):
        return None  # most calls: no plan tool
    before = view.latest()
    if isinstance(event, ToolCall):
        changed = (
            steps_from_todos(event.input.get("todos"))
            if event.tool == "TodoWrite"
            else _apply_task_call(before.steps if before else (), event)
        )
        if changed is None:
            return None
        steps = changed
    else:
        steps = event.steps
    plan = Plan(steps=steps)
    if before is not None and plan.completed > before.completed:
        return (Replace(plan), Request(PLAN_PROGRESS_CHECK))
    return Replace(plan)


def _apply_task_call(steps: tuple[PlanStep, ...], call: ToolCall) -> tuple[PlanStep, ...] | None:
    """Steps after a TaskCreate (adds one) or TaskUpdate (changes or deletes one by id)."""
    if call.tool == "TaskCreate":
        subject = call.input.get("subject")
        if not isinstance(subject, str):
            return None
        task = (call.result or {}).get("task")
        task_id = task.get("id") if isinstance(task, dict) else None
        new = PlanStep(
            content=subject,
            active_form=str(call.input.get("activeForm") or ""),
            id=str(task_id) if task_id is not None else str(len(steps) + 1),
        )
        return (*steps, new)
    task_id = str(call.input.get("taskId", ""))
    status = call.input.get("status")
    if not task_id or not isinstance(status, str) or (call.result or {}).get("success") is False:
        return None
    if status == "deleted":
        return tuple(step for step in steps if step.id != task_id)
    return tuple(
        PlanStep(content=s.content, status=status, active_form=s.active_form, id=s.id)
        if s.id == task_id
        else s
        for s in steps
    )
