"""The continuity list (specs/runtime.md, Continuity) over a real store: most severe first, each
with its short id and where it points, the rest counted, never over its budget; said once."""

from __future__ import annotations

from pathlib import Path

import pytest

from onlooker import Finding, FixedClock, SessionStarted
from onlooker.core.message import INTRODUCTION
from onlooker.runtime.continuity import CONTINUITY_LIMIT, continued_observations
from onlooker.runtime.next_turn import next_turn_observations
from onlooker.store import Store, short_id

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike


def started(source: str) -> SessionStarted:
    return SessionStarted(session_id="s1", source=source, cwd="/work/shop")


def test_many_long_findings_stay_within_the_budget_most_severe_first(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        made = store.create(
            [Finding(observer="Code Reviewer", content=f"Problem {n} " + "x" * 900,
                     severity="critical" if n == 30 else "medium", source_type="file",
                     source_ref=f"src/m{n}.py:{n}") for n in range(40)],
            project="shop", session_id="s1",
        )  # fmt: skip
        text = continued_observations(store, started("compact"), project="shop", session_id="s1")
        assert len(text) <= CONTINUITY_LIMIT
        lines = text.splitlines()
        assert lines[1] == "Still open in this session (40), said again after compaction:"
        assert lines[2].startswith(f"- [critical] {short_id(made[30].observation.id)} Code ")
        assert lines[2].endswith("… (src/m30.py:30)")
        listed = [line for line in lines if line.startswith("- [")]
        assert 3 <= len(listed) <= 12  # as many as fit, at most 12 ...
        assert f"… and {40 - len(listed)} more (observations tool, operation list)" in text
        assert text.endswith(INTRODUCTION)  # the first message's line on acting by id
        # the prompt after it does not repeat the same observations as a summary
        assert next_turn_observations(store, project="shop", session_id="s1") == ""


def test_only_a_start_after_compaction_or_a_resume_brings_them_back(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        store.create([Finding(observer="Stall", content="Same call 4 times", severity="high")],
                     project="shop", session_id="s1")  # fmt: skip
        for source in ("startup", "clear"):
            assert continued_observations(store, started(source), project="shop",
                                          session_id="s1") == ""  # fmt: skip
        first = continued_observations(store, started("resume"), project="shop", session_id="s1")
        assert "Same call 4 times" in first
        assert continued_observations(store, started("resume"), project="shop",
                                      session_id="s1") == ""  # fmt: skip
        assert continued_observations(store, started("compact"), project="shop",
                                      session_id="s1")  # fmt: skip
