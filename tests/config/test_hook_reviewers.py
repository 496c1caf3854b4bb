"""The hook runs the reviewers the project config names, and files what they find (pattern 5)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from onlooker import FixedClock
from onlooker.hosts.claude_code.hook import HookHandler
from onlooker.llm import Model
from onlooker.store import Store
from onlooker.testing import ScriptedModel

EXAMPLES = Path(__file__).parents[2] / "examples" / "config"
SESSION = "7d2f4c1a-3b9e-4e61-8a0d-5c6b7e8f9a10"
FINDING = {"content": "SQL built from user input with an f-string", "severity": "critical",
           "source_ref": "src/users.py:2"}  # fmt: skip
FAKE_GH = """#!/bin/sh
echo "$@" > "$GH_LOG"
echo "https://github.com/acme/app/issues/7"
"""


def config_text(github: bool = False) -> str:
    """Pattern 5, run in parallel when the user sends a message (so the answer carries it)."""
    text = (EXAMPLES / "pattern5-issues.yaml").read_text()
    text = text.replace(
        "      observers:",
        "      hooks:\n        - trigger: message:received\n"
        "      execution: {mode: parallel}\n      observers:",
    )
    return text.replace("github: false", f"github: {'true' if github else 'false'}")


def prompt(root: Path, text: str) -> bytes:
    return json.dumps({"session_id": SESSION, "transcript_path": "/t.jsonl", "cwd": str(root),
                       "hook_event_name": "UserPromptSubmit", "prompt": text}).encode()  # fmt: skip


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "app"
    (folder / "src").mkdir(parents=True)
    (folder / ".git").mkdir()
    (folder / "src" / "users.py").write_text(
        "def find(db, name):\n    return db.execute(f'{name}')\n"
    )
    return folder


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel([{"observations": [FINDING]}])


@pytest.fixture
def handler(onlooker_home: Path, model: ScriptedModel) -> Iterator[HookHandler]:
    seen: list[str] = []

    def models(spec: str) -> Model:
        seen.append(spec)
        assert spec == "anthropic:claude-3-5-sonnet"  # a paid remote model, scripted here
        return model

    with Store(onlooker_home) as store:
        yield HookHandler(store, clock=FixedClock(), models=models)


def context(answer: bytes) -> str:
    data: dict[str, Any] = json.loads(answer) if answer else {}
    return str(data.get("hookSpecificOutput", {}).get("additionalContext", ""))


def test_configured_reviewers_run_and_their_findings_become_issues(
    handler: HookHandler, root: Path, model: ScriptedModel
) -> None:
    (root / "onlooker.yaml").write_text(config_text())
    said = context(handler.handle(prompt(root, "Add a lookup by name")))
    assert "Security Reviewer" in said and "SQL built from user input" in said
    assert "def find(db, name)" in model.requests[0].prompt
    issues = (root / ".onlooker" / "issues.md").read_text()
    assert issues.count("\n## [critical] Security Reviewer: SQL built from user input") == 1
    said = context(handler.handle(prompt(root, "And now?")))  # unchanged files: not reviewed
    assert len(model.requests) == 1
    assert (root / ".onlooker" / "issues.md").read_text() == issues


def test_an_issues_file_that_cannot_be_read_does_not_cost_the_answer(
    handler: HookHandler, root: Path
) -> None:
    (root / "onlooker.yaml").write_text(config_text())
    (root / ".onlooker").mkdir()
    (root / ".onlooker" / "issues.md").write_bytes(b"# Issues\n\xff\xfe not text\n")
    said = context(handler.handle(prompt(root, "Add a lookup by name")))
    assert "SQL built from user input" in said


def test_no_reviewer_runs_while_the_config_does_not_validate(
    handler: HookHandler, root: Path, model: ScriptedModel
) -> None:
    (root / "onlooker.yaml").write_text(config_text().replace("mode: parallel", "mode: paralel"))
    assert "Security Reviewer" not in context(handler.handle(prompt(root, "Add a lookup")))
    assert model.requests == [] and not (root / ".onlooker").exists()


def test_github_issues_are_opened_by_a_detached_process(
    handler: HookHandler, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir, log = tmp_path / "bin", tmp_path / "gh.log"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH)
    (bin_dir / "gh").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GH_LOG", str(log))
    (root / "onlooker.yaml").write_text(config_text(github=True))
    answer = handler.handle(prompt(root, "Add a lookup by name"))
    assert "SQL built from user input" in context(answer)
    assert "- GitHub: pending" in (root / ".onlooker" / "issues.md").read_text()
    give_up = time.monotonic() + 60  # waits for the detached `onlooker issues`, not for time
    while "issues/7" not in (root / ".onlooker" / "issues.md").read_text():
        assert time.monotonic() < give_up, "the detached gh run did not finish"
        time.sleep(0.05)
    assert log.read_text().startswith("issue create --title [critical] Security Reviewer:")
