"""Token budgets of memory extraction's model (specs/memory.md): a cap per session and one per
UTC day, checked before each call against what the journaled calls have used. A batch the budget
refuses is not sent: its memories are made by rule (memory.digest), and the refusal is counted,
so `onlooker status` and `doctor` show the work done without the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..llm.model import Usage
from ..store.memory_records import MemoryModelUsed
from ._memories import Memories
from .inject import estimate_tokens

ANSWER_ALLOWANCE = 300
"""Tokens counted for the answer when a call is weighed (memories are short)."""


@dataclass(frozen=True, slots=True)
class TokenBudget:
    """The caps (input and output tokens together); 0 turns a cap off."""

    session_tokens: int
    daily_tokens: int

    def refusal(self, memories: Memories, session_id: str, day: str, prompt: str) -> str:
        """'' when a call with this prompt fits both caps, else the cap it would pass
        (`session` or `day`)."""
        session, today = f"tokens@session:{session_id}", f"tokens@day:{day}"
        used = memories.model_counters(session, today)
        cost = estimate_tokens(prompt) + ANSWER_ALLOWANCE
        if self.session_tokens and used[session] + cost > self.session_tokens:
            return "session"
        if self.daily_tokens and used[today] + cost > self.daily_tokens:
            return "day"
        return ""


def day_of(when: datetime) -> str:
    """The budget's day of a time (UTC), YYYY-MM-DD."""
    return when.strftime("%Y-%m-%d")


def used(
    *, project: str, session_id: str, model: str, day: str, usage: Usage | None, skipped: str = ""
) -> MemoryModelUsed:
    """The journal record of one call (its usage) or of one the budget refused."""
    usage = usage or Usage()
    return MemoryModelUsed(
        project=project, session_id=session_id, model=model, day=day,
        input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd if not skipped else 0.0, skipped=skipped,
    )  # fmt: skip
