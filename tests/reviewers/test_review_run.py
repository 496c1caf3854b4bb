"""Running reviewers: change detection skips, parallel runs within bounds, findings and runs stored."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from onlooker import FixedClock, Session
from onlooker.core.assessment import ObserverFailure
from onlooker.core.events import UserPrompt
from onlooker.llm import Completion, Message, Model
from onlooker.reviewers._run import due_reviewers, remember, run_parallel
from onlooker.reviewers.config import ReviewerConfig, ReviewSetup
from onlooker.reviewers.execution import Execution
from onlooker.reviewers.watch import ConversationTarget, FilesTarget
from onlooker.store import Store
from onlooker.testing import ScriptedModel

ISSUE = {"content": "Unbounded retry loop", "severity": "high", "source_ref": "src/a.py:1"}


def reviewer(name: str, timeout: float = 5.0, **kw: Any) -> ReviewerConfig:
    return ReviewerConfig(
        name=name, role="r", focus="f", model=f"scripted:{name}",
        watch=kw.get("watch", (FilesTarget(("src/**/*.py",)),)), timeout=timeout,
    )  # fmt: skip


def test_only_reviewers_whose_targets_changed_are_due(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("a = 1\n")
    files, talk = reviewer("Files"), reviewer("Talk", watch=(ConversationTarget(),))
    setup = ReviewSetup((files, talk))
    session = Session("s")
    due, unchanged = due_reviewers(setup, session, tmp_path)
    assert [r.name for r, _ in due] == ["Files", "Talk"] and unchanged == []
    remember(session, due)
    assert due_reviewers(setup, session, tmp_path)[0] == []
    session.append(UserPrompt(text="next"))
    due, unchanged = due_reviewers(setup, session, tmp_path)
    assert [r.name for r, _ in due] == ["Talk"] and unchanged == [files]
    (tmp_path / "src" / "a.py").write_text("a = 22\n")
    assert [r.name for r, _ in due_reviewers(setup, session, tmp_path)[0]] == ["Files", "Talk"]


class Gathering:
    """A model that answers once `expected` calls are in flight together (or never)."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.in_flight = 0
        self.most = 0
        self.name = "gathering"

    async def complete(self, messages: list[Message], **options: Any) -> Completion:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            while self.in_flight < self.expected and self.most < self.expected:
                await asyncio.sleep(0.005)
            return Completion(text=json.dumps({"observations": [ISSUE]}), data={"observations": []})
        finally:
            self.in_flight -= 1


def test_due_reviewers_run_at_once_up_to_max_concurrent(tmp_path: Path) -> None:
    model = Gathering(expected=3)
    with Store(tmp_path / "home") as store:
        runs = run_parallel(
            [reviewer(f"R{i}") for i in range(6)],
            Execution(mode="parallel", max_concurrent=3, timeout_per_observer=10),
            store=store, project="p", session=Session("s"), root=tmp_path,
            model_for=lambda spec: model,
        )  # fmt: skip
    assert model.most == 3
    assert [r.outcome.status for r in runs] == ["ok"] * 6


def test_findings_are_stored_once_and_every_run_is_recorded(tmp_path: Path) -> None:
    clock = FixedClock()
    models: dict[str, Model] = {
        "scripted:A": ScriptedModel([{"observations": [ISSUE]}], cost_per_call=0.01),
        "scripted:B": ScriptedModel([{"observations": []}]),
    }
    session = Session("s")
    with Store(tmp_path / "home", clock=clock) as store:
        reports = []
        for _ in range(2):
            runs = run_parallel(
                [reviewer("A"), reviewer("B")], Execution(mode="parallel"),
                store=store, project="p", session=session, root=tmp_path,
                model_for=models.__getitem__,
            )  # fmt: skip
            reports.append(runs[0].report)
        a = runs[0]
        assert a.report == "" and not a.created[0].new  # the repeat is an occurrence
        (stored,) = store.open_findings("p", "A")
        assert stored.content == "Unbounded retry loop" and stored.severity == "high"
        # the report names the finding by its stored id, and where it points
        assert f"[id {stored.id[:8]}]: Unbounded retry loop" in reports[0]
        assert reports[0].endswith("Unbounded retry loop (src/a.py:1)")
        assert store.open_findings("p", "B") == ()
        costs = {c.observer: c for c in store.runs.costs("p")}
        assert costs["A"].runs == 2 and costs["A"].cost_usd == 0.02
        assert costs["B"].by_status == {"ok": 2} and costs["B"].cost_usd is None
        assert store.runs.take_undelivered("s") == []  # parallel results are delivered at once


def test_a_model_that_ignores_cancellation_cannot_hold_the_caller(tmp_path: Path) -> None:
    class Stuck:
        name = "stuck"

        async def complete(self, messages: list[Message], **options: Any) -> Completion:
            time.sleep(3)  # blocks its event loop: no timeout inside the loop can fire
            return Completion(text="{}")

    models: dict[str, Model] = {"scripted:Stuck": Stuck(), "scripted:Fine": ScriptedModel(["{}"])}
    started = time.monotonic()
    with Store(tmp_path / "home") as store:
        runs = run_parallel(
            [reviewer("Stuck", timeout=0.2), reviewer("Fine", timeout=0.2)],
            Execution(mode="parallel", timeout_per_observer=30),
            store=store, project="p", session=Session("s"), root=tmp_path,
            model_for=models.__getitem__,
        )  # fmt: skip
        journal = store.journal("p", "s").read(0).records
    assert time.monotonic() - started < 2.5  # the longest bound (0.2 s) + 1 s grace, not 3 s
    assert runs[0].outcome.status == "timeout"
    failures = [r for r in journal if isinstance(r, ObserverFailure)]
    assert [(f.observer, f.timed_out) for f in failures][:1] == [("Stuck", True)]


def test_a_missing_model_is_an_error_run_not_a_crash(tmp_path: Path) -> None:
    def no_provider(spec: str) -> Model:
        raise RuntimeError(f"no provider for {spec}")

    with Store(tmp_path / "home") as store:
        (run,) = run_parallel(
            [reviewer("A")], Execution(mode="parallel"), store=store, project="p",
            session=Session("s"), root=tmp_path, model_for=no_provider,
        )  # fmt: skip
        assert run.outcome.status == "error" and "no provider" in (run.outcome.error or "")
        assert store.runs.last("A", "s") == ("error", "RuntimeError: no provider for scripted:A")
