"""Plan Progress: how far the plan (Claude Code todos, PlanUpdated events) has come: a status
line, never a finding."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from ..core.assessment import Assessment
from ..core.observer import ObserverContext
from ..core.plan import PLAN_PROGRESS_CHECK, Plan
from ..core.triggers import Trigger


@dataclass(frozen=True, slots=True)
class PlanProgressObserver:
    """Report progress after plan steps complete (triggered by the plan reducer's marker)."""

    inline: ClassVar[bool] = True
    """Bounded work over the session: runs in the hook's own thread (core/engine.py)."""

    trigger: Trigger = field(
        default_factory=lambda: Trigger.on(PLAN_PROGRESS_CHECK, "plan_updated")
    )

    @property
    def name(self) -> str:
        return "Plan Progress"

    def should_run(self, ctx: ObserverContext) -> bool:
        plan = ctx.session[Plan].latest()
        return plan is not None and plan.total > 0

    def observe(self, ctx: ObserverContext) -> Assessment | None:
        plan = ctx.session[Plan].latest()
        if plan is None or plan.total == 0:
            return None
        if plan.remaining == 0:
            return Assessment(
                observer_name=self.name, summary=f"All {plan.total} plan steps complete.",
                status=True,
            )  # fmt: skip
        step = plan.next_step()
        return Assessment(
            observer_name=self.name,
            summary=f"Completed {plan.completed}/{plan.total} steps. {plan.remaining} remaining.",
            suggestions=(f"Next: {step.content}",) if step else (),
            status=True,
        )
