"""The hook handler takes its observers from the project's config, reloaded when the file changes."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from onlooker import FixedClock
from onlooker.config import ProjectConfigs
from onlooker.hosts.claude_code.hook import HookHandler
from onlooker.store import Store

SESSION = "3c1e9a52-0b7d-4d0a-9f55-2a6f0e7c4b11"


def hook(cwd: Path, event: str, **fields: Any) -> bytes:
    data = {
        "session_id": SESSION,
        "transcript_path": "/t.jsonl",
        "cwd": str(cwd),
        "hook_event_name": event,
        **fields,
    }
    return json.dumps(data).encode()


def failure(cwd: Path, n: int) -> bytes:
    return hook(
        cwd,
        "PostToolUseFailure",
        tool_name="Bash",
        tool_input={"command": f"make step{n}"},
        tool_use_id=f"toolu_{n:04d}",
        error=f"Exit code {n}\nstep{n} broke in a new way {n * 7}",
    )


def context(answer: bytes) -> str:
    return json.loads(answer)["hookSpecificOutput"]["additionalContext"] if answer else ""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def handler(onlooker_home: Path, clock: FixedClock) -> Any:
    store = Store(onlooker_home)
    yield HookHandler(store, clock=clock, configs=ProjectConfigs())
    store.close()


def feed_failures(handler: HookHandler, cwd: Path, count: int, start: int = 0) -> list[str]:
    return [context(handler.handle(failure(cwd, start + n))) for n in range(count)]


def test_configured_thresholds_change_what_the_agent_is_told(
    handler: HookHandler, project: Path
) -> None:
    said = feed_failures(handler, project, 2)
    assert not any("Error Cascade" in text for text in said)  # default: 4 in a row
    (project / "onlooker.yaml").write_text(
        "trajectory:\n  observers:\n    error-cascade: {streak_warn: 2}\n"
    )
    said = feed_failures(handler, project, 1, start=2)
    assert "Error Cascade" in said[0] and "3 consecutive" in said[0]


def test_an_observer_turned_off_says_nothing(handler: HookHandler, project: Path) -> None:
    (project / "onlooker.yaml").write_text("trajectory:\n  observers:\n    cascade: false\n")
    said = feed_failures(handler, project, 6)
    assert not any("Error Cascade" in text for text in said)


def test_the_deadline_comes_from_the_config(
    handler: HookHandler, project: Path, clock: FixedClock
) -> None:
    (project / "onlooker.yaml").write_text("trajectory: {deadline_minutes: 2}\n")
    assert context(handler.handle(hook(project, "SessionStart", source="startup"))) == ""
    clock.advance(61)
    said = context(handler.handle(failure(project, 1)))
    assert said == "[Deadline] 59 seconds remaining (51% of the time used). " + (
        "The remaining work is best wrapped up."
    )


def test_a_section_with_a_problem_takes_its_defaults_and_is_logged_once(
    handler: HookHandler, project: Path, caplog: pytest.LogCaptureFixture, onlooker_home: Path
) -> None:
    (project / "onlooker.yaml").write_text(
        "trajectory:\n  observers:\n    error-cascade: {streak_warn: two}\n"
    )
    with caplog.at_level(logging.WARNING, logger="onlooker.config"):
        said = feed_failures(handler, project, 6)
    # the trajectory section runs with its defaults: Error Cascade at 4 failures in a row
    assert said[:3] == [""] * 3 and "Error Cascade" in said[3]
    logged = [r.getMessage() for r in caplog.records if r.name == "onlooker.config"]
    assert len(logged) == 1 and "onlooker.yaml:3: trajectory.observers.error-cascade" in logged[0]
    assert "trajectory use the defaults" in logged[0]
    handler.close()
    journal = next((onlooker_home / "journals").rglob(f"{SESSION}.jsonl")).read_text()
    assert journal.count('"tool_call"') >= 6
    (project / "onlooker.yaml").write_text(
        "trajectory:\n  observers:\n    cascade: {streak_warn: 2}\n"
    )
    fixed = handler.configs.lookup(str(project))
    assert fixed.problems == () and fixed.defaulted == ()
    cascade = next(o for o in fixed.observers if o.name == "Error Cascade")
    assert cascade.streak_warn == 2  # type: ignore[attr-defined]


def test_a_lookup_is_cached_until_the_file_changes(project: Path) -> None:
    configs = ProjectConfigs()
    (project / "src").mkdir()
    first = configs.lookup(str(project / "src"))
    assert first.key is None and len(first.observers) == 5
    assert configs.lookup(str(project / "src")) is first
    path = project / ".onlooker" / "config.yaml"
    path.parent.mkdir()
    path.write_text("trajectory: {observers: {drift: false}}\n")
    second = configs.lookup(str(project / "src"))
    assert second is not first and second.key is not None and second.key[0] == str(path)
    assert [o.name for o in second.observers] == [
        "Deadline",
        "Plan Progress",
        "Stall",
        "Error Cascade",
    ]
    assert configs.lookup(str(project)) is second
    path.write_text("trajectory: {observers: {drift: false, stall: false}}\n")
    assert len(configs.lookup(str(project)).observers) == 3
