"""Scored sessions for the scoring tests: a real store, journaled events, a scripted judge."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from onlooker.core.clock import FixedClock
from onlooker.core.events import SessionStarted, ToolCall, TurnEnded, UserPrompt
from onlooker.store import Store

sys.path.insert(0, str(Path(__file__).parent))

PROJECT = "demo"
START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def card(score: float, weaknesses: list[str], **extra: Any) -> dict[str, Any]:
    """A judge's answer with every dimension at `score`."""
    names = ("instruction_following", "completeness", "proactiveness", "code_quality",
             "communication")  # fmt: skip
    return {
        "overall_score": score,
        "categories": dict.fromkeys(names, score),
        "strengths": ["clear summaries"],
        "weaknesses": weaknesses,
        **extra,
    }


def record_session(
    store: Store, session_id: str, *, prompt: str = "add a test", source: str = "startup",
    agent_type: str = "", parent: str = "",
) -> None:  # fmt: skip
    """Journal a short session: start, prompt, a tool call, the turn's end."""
    at = store.clock.now()
    events = [
        SessionStarted(
            session_id=session_id,
            seq=1,
            at=at,
            source=source,
            cwd="/p",
            agent_type=agent_type,
            parent_session_id=parent,
        ),
        UserPrompt(session_id=session_id, seq=2, at=at, text=prompt),
        ToolCall(
            session_id=session_id,
            seq=3,
            at=at,
            tool="Bash",
            input={"command": "ls"},
            output="x" * 3000,
        ),
        TurnEnded(session_id=session_id, seq=4, at=at, last_message="Done."),
    ]
    store.append(events, project=PROJECT, session_id=session_id)


class Ticking(FixedClock):
    """A fixed clock that moves a minute each time it is read (scores get distinct times)."""

    def now(self) -> datetime:
        return self.advance(minutes=1)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "home", clock=Ticking(START)) as opened:
        yield opened
