"""Batched extraction with a scripted model in place of a paid API: batch sizes, context from the
previous batch, empty answers, failures that leave events pending, bounded output."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from onlooker import FixedClock
from onlooker.errors import ExtractionFailed
from onlooker.llm.model import Model, ModelUnavailable
from onlooker.memory._memories import Memories
from onlooker.memory.extract import SCHEMA, batch_sizes, extract_session, handle
from onlooker.store import Store
from onlooker.testing import ScriptedModel, ScriptedRequest


@dataclass
class Job:
    payload: Mapping[str, Any]


@dataclass
class Context:
    store: Store
    models: dict[str, Model] = field(default_factory=dict)

    def model(self, spec: str) -> Model:
        return self.models[spec]


def queue(memories: Memories, count: int, clock: FixedClock, session: str = "s1") -> None:
    for n in range(count):
        clock.advance(1)
        memories.add_pending(session_id=session, project="shop", tool_name="Edit",
                             compressed=f"Edited /app/mod{n}.py: a{n} → b{n}",
                             files=[f"/app/mod{n}.py"], at=clock.now())  # fmt: skip


def per_batch(request: ScriptedRequest) -> dict[str, Any]:
    """Two memories naming the first and last event of the batch it was given."""
    lines = [line for line in request.messages[-1].content.splitlines() if ". Edited" in line]
    first, last = lines[0].split()[2].rstrip(":"), lines[-1].split()[2].rstrip(":")
    return {"memories": [{"title": f"Changed {first}", "content": f"{first} was edited."},
                         {"title": f"Changed {last}", "content": f"{last} was edited last."}]}  # fmt: skip


def test_batch_sizes() -> None:
    assert batch_sizes(2, final=True) == []
    assert batch_sizes(3, final=True) == [3]
    assert batch_sizes(20, final=True) == [20]
    assert batch_sizes(21, final=True) == [11, 10]
    assert batch_sizes(45, final=True) == [15, 15, 15]
    for n in range(10, 400):
        sizes = batch_sizes(n, final=True)
        assert sum(sizes) == n and all(10 <= s <= 20 for s in sizes)
    assert batch_sizes(29, final=False) == [] and batch_sizes(30, final=False) == [20]
    assert batch_sizes(49, final=False) == [20] and batch_sizes(50, final=False) == [20, 20]
    for n in range(30, 400):  # what a turn's end leaves, the session's end splits into 10-20s
        left = n - sum(batch_sizes(n, final=False))
        assert 10 <= left < 30 and all(10 <= s <= 20 for s in batch_sizes(left, final=True))


def test_batches_in_order_with_the_previous_batch_as_context(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        queue(memories, 45, clock)
        model = ScriptedModel([per_batch])
        report = extract_session(memories, model, project="shop", session_id="s1")
        assert (report.events, report.batches, model.calls) == (45, 3, 3)
        assert memories.pending("shop", "s1") == []
        titles = [m.title for m in report.memories]
        assert titles == ["Changed /app/mod0.py", "Changed /app/mod14.py", "Changed /app/mod15.py",
                          "Changed /app/mod29.py", "Changed /app/mod30.py", "Changed /app/mod44.py"]  # fmt: skip
        assert "(none)" in model.requests[0].prompt
        assert "Changed /app/mod14.py" in model.requests[1].messages[-1].content
        assert "Changed /app/mod14.py" not in model.requests[2].messages[-1].content
        assert report.memories[1].files == ("/app/mod14.py",)
        assert all(r.schema == SCHEMA for r in model.requests)
        assert SCHEMA["properties"]["memories"]["maxItems"] == 5


def test_short_sessions_are_skipped_and_empty_answers_consume(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        queue(memories, 2, clock)
        model = ScriptedModel([{"memories": []}])
        report = extract_session(memories, model, project="shop", session_id="s1")
        assert report.skipped and model.calls == 0
        queue(memories, 10, clock)
        report = extract_session(memories, model, project="shop", session_id="s1")
        assert (report.batches, report.memories) == (1, ()) and memories.pending("shop", "s1") == []


def test_a_failed_batch_keeps_its_events_pending(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        queue(memories, 40, clock)
        model = ScriptedModel([per_batch, ModelUnavailable("503 from provider"), per_batch])
        with pytest.raises(ExtractionFailed, match="batch 2 of 2"):
            extract_session(memories, model, project="shop", session_id="s1")
        left = memories.pending("shop", "s1")
        assert len(left) == 20 and left[0].compressed.startswith("Edited /app/mod20.py")
        assert memories.count() == 2
        report = extract_session(memories, model, project="shop", session_id="s1")
        assert report.batches == 1 and memories.pending("shop", "s1") == []
        assert "Changed /app/mod19.py" in model.requests[-1].prompt  # context carried over


def test_output_is_bounded_and_junk_items_dropped(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        queue(memories, 5, clock)
        items = [{"title": "Token hash " * 50, "content": "sha512 now. " * 500}, {"title": 3},
                 "junk", *({"title": f"m{n}", "content": "ok"} for n in range(10))]  # fmt: skip
        report = extract_session(
            memories, ScriptedModel([{"memories": items}]), project="shop", session_id="s1"
        )
        assert len(report.memories) == 1  # 5 items looked at: 2 malformed, 2 too short
        assert report.dropped == 2 and memories.dropped() == 2
        assert len(report.memories[0].title) == 120 and len(report.memories[0].content) == 600


def test_turn_end_runs_full_batches_and_session_end_the_rest(
    clock: FixedClock, tmp_path: Path
) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        model = ScriptedModel([{"memories": [{"title": "x", "content": "y"}]}])
        ctx = Context(store, {"scripted:test": model})
        turn_end = Job({"project": "shop", "session_id": "s1", "final": False,
                        "model": "scripted:test"})  # fmt: skip
        queue(memories, 22, clock)
        handle(turn_end, ctx)  # 20 would leave 2 for the end: it waits
        assert model.calls == 0 and len(memories.pending("shop", "s1")) == 22
        queue(memories, 13, clock)
        handle(turn_end, ctx)
        assert model.calls == 1 and len(memories.pending("shop", "s1")) == 15
        handle(Job({"project": "shop", "session_id": "s1", "model": "scripted:test"}), ctx)
        assert model.calls == 2 and memories.pending("shop", "s1") == []
        last = model.requests[-1].messages[-1].content
        assert len([line for line in last.splitlines() if ". Edited" in line]) == 15
        queue(memories, 2, clock, session="s2")
        handle(Job({"project": "shop", "session_id": "s2", "model": "scripted:test"}), ctx)
        assert model.calls == 2 and memories.pending("shop", "s2") == []  # too short: dropped
