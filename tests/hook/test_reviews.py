"""Reviewers at the hook: parallel runs delivered at once, change detection across hooks, blocking
on a timeout under on_timeout: fail, background reports delivered once."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hook_runner import make_project

from onlooker import FixedClock
from onlooker.core.triggers import Trigger
from onlooker.hosts.claude_code.hook import HookHandler
from onlooker.reviewers.config import ReviewerConfig, ReviewSetup
from onlooker.reviewers.execution import Execution
from onlooker.reviewers.handoff import configured_reviewers, no_reviewers
from onlooker.reviewers.watch import FilesTarget
from onlooker.store import Store, project_for
from onlooker.testing import ScriptedModel

ISSUE = {"content": "Password compared with ==", "severity": "high", "source_ref": "src/a.py:1"}


def project(tmp_path: Path) -> Path:
    return make_project(tmp_path, {"src/a.py": "ok = password == given\n"})


def hook(event: str, root: Path, **fields: Any) -> bytes:
    data = {"session_id": "s1", "cwd": str(root), "hook_event_name": event, **fields}
    return json.dumps(data).encode()


def post_tool_use(root: Path, n: int) -> bytes:
    return hook(
        "PostToolUse", root, tool_name="Edit", tool_input={"file_path": "src/a.py"},
        tool_response={"ok": True}, tool_use_id=f"toolu_{n}",
    )  # fmt: skip


def handler(
    store: Store, root: Path, model: ScriptedModel, execution: Execution, timeout: float = 5.0
) -> HookHandler:
    reviewer = ReviewerConfig(
        name="Security", role="Security review", focus="Timing attacks", model="scripted:m",
        watch=(FilesTarget(("src/**/*.py",)),), timeout=timeout,
    )  # fmt: skip
    setup = ReviewSetup((reviewer,), execution, Trigger.on("tool_call", "turn_ended"))
    seen: list[str] = []

    def setup_for(path: str) -> ReviewSetup | None:
        seen.append(path)
        return setup if path == str(root) else None

    made = HookHandler(store, clock=FixedClock(), reviewers=setup_for, models=lambda s: model)
    made.seen_roots = seen  # type: ignore[attr-defined]
    return made


def answer(made: HookHandler, raw: bytes) -> dict[str, Any]:
    out = made.handle(raw)
    return json.loads(out) if out else {}


def context(found: dict[str, Any]) -> str:
    return str(found.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_parallel_reviewers_answer_in_the_same_hook_and_skip_unchanged_files(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    model = ScriptedModel([{"observations": [ISSUE]}])
    with Store(tmp_path / "home") as store:
        made = handler(store, root, model, Execution(mode="parallel"))
        first = answer(made, post_tool_use(root, 1))
        assert "[Trajectory Assessment - Security]" in context(first)
        assert re.search(r"• \[id [0-9a-f]{8}\]: Password compared with ==", context(first))
        assert made.seen_roots[-1] == str(root)  # type: ignore[attr-defined]
        assert answer(made, post_tool_use(root, 2)) == {}  # files unchanged: skipped
        assert model.calls == 1
        (root / "src" / "a.py").write_text("ok = hmac.compare_digest(password, given)\n")
        assert context(answer(made, post_tool_use(root, 3))) == ""  # same finding: no news
        assert model.calls == 2
        (cost,) = store.runs.costs(project_for(root))
        assert cost.by_status == {"ok": 2, "skipped": 1}
        (stored,) = store.open_findings(project_for(root), "Security")
        assert stored.content == ISSUE["content"]


def test_a_fresh_handler_remembers_what_was_reviewed(tmp_path: Path) -> None:
    root = project(tmp_path)
    model = ScriptedModel([{"observations": []}])
    with Store(tmp_path / "home") as store:
        answer(handler(store, root, model, Execution(mode="parallel")), post_tool_use(root, 1))
        answer(handler(store, root, model, Execution(mode="parallel")), post_tool_use(root, 2))
    assert model.calls == 1  # the second process found the hash in the saved session


@pytest.mark.parametrize(("on_timeout", "blocked"), [("fail", True), ("skip", False)])
def test_a_timed_out_reviewer_blocks_only_under_fail(
    tmp_path: Path, on_timeout: Any, blocked: bool
) -> None:
    root = project(tmp_path)
    slow = ScriptedModel(["{}"], latency=30)
    execution = Execution(mode="parallel", timeout_per_observer=0.2, on_timeout=on_timeout)
    with Store(tmp_path / "home") as store:
        found = answer(handler(store, root, slow, execution), post_tool_use(root, 1))
        stop = answer(
            handler(store, root, slow, execution, timeout=0.2),
            hook("Stop", root, stop_hook_active=False),
        )
        (cost,) = store.runs.costs(project_for(root))
        assert cost.by_status == {"timeout": 1, "skipped": 1}
    if blocked:
        assert found["decision"] == "block" and "Security timed out" in found["reason"]
        assert "on_timeout: fail" in found["reason"]
    else:
        assert "decision" not in found
    assert stop == {}  # unchanged files at Stop: nothing ran, nothing to block


def test_background_reports_are_delivered_once_at_the_next_delivery_point(tmp_path: Path) -> None:
    root = project(tmp_path)
    with Store(tmp_path / "home") as store:
        made = handler(store, root, ScriptedModel(["{}"]), Execution(mode="parallel"))
        store.record_observer_run(
            "Security",
            session_id="s1",
            project=project_for(root),
            status="ok",
            report="[late report]",
        )
        assert context(answer(made, hook("Stop", root, stop_hook_active=False))) == ""
        assert "[late report]" in context(answer(made, hook("UserPromptSubmit", root, prompt="go")))
        assert "[late report]" not in context(answer(made, post_tool_use(root, 9)))


def test_a_failing_review_step_leaves_waiting_reports_for_the_next_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from onlooker.reviewers import handoff as reviews

    root = project(tmp_path)
    with Store(tmp_path / "home") as store:
        made = handler(store, root, ScriptedModel(["{}"]), Execution(mode="parallel"))
        store.record_observer_run(
            "Security",
            session_id="s1",
            project=project_for(root),
            status="ok",
            report="[late report]",
        )

        def broken(*args: object) -> object:
            raise OSError("the watched folder vanished")

        with monkeypatch.context() as patched:
            patched.setattr(reviews, "due_reviewers", broken)
            assert "[late report]" not in context(answer(made, post_tool_use(root, 1)))
        assert "[late report]" in context(answer(made, post_tool_use(root, 2)))


def test_a_broken_setup_function_never_breaks_the_hook(tmp_path: Path) -> None:
    root = project(tmp_path)

    def broken(path: str) -> ReviewSetup | None:
        raise RuntimeError("bad config")

    with Store(tmp_path / "home") as store:
        made = HookHandler(store, clock=FixedClock(), reviewers=broken)
        assert made.handle(post_tool_use(root, 1)) == b""
        assert not (store.home / "spool").exists()  # handled, not spooled as a crash


def test_the_setup_function_can_be_named_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert configured_reviewers() is None  # the project config's reviewers
    monkeypatch.setenv("ONLOOKER_REVIEW_SETUP", "onlooker.reviewers.handoff:no_reviewers")
    assert configured_reviewers() is no_reviewers
    monkeypatch.setenv("ONLOOKER_REVIEW_SETUP", "no.such.module:setup")
    assert configured_reviewers() is no_reviewers


def test_a_timed_out_reviewer_at_stop_blocks_the_stop(tmp_path: Path) -> None:
    root = project(tmp_path)
    slow = ScriptedModel(["{}"], latency=30)
    execution = Execution(mode="parallel", timeout_per_observer=0.2, on_timeout="fail")
    with Store(tmp_path / "home") as store:
        found = answer(handler(store, root, slow, execution), hook("Stop", root))
    assert set(found) == {"decision", "reason"} and found["decision"] == "block"
    assert "Security timed out" in found["reason"]
