"""Parallel reviewers through the real `onlooker hook` command: a reviewer slower than the hook
client's wait times out inside the hook's budget, so `on_timeout: fail` still blocks."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hook_runner import answer, make_project

from onlooker.store import Store
from onlooker.testing.openai_endpoint import ScriptedEndpoint

CONFIG = """\
behaviors:
  - module: hooks-observations
    config:
      hooks:
        - trigger: message:received
      execution:
        mode: parallel
        timeout_per_observer: 28
        on_timeout: {on_timeout}
      observers:
        - name: Slow Reviewer
          role: Logic review
          focus: Mistakes
          model: "{model}"
          watch:
            - type: conversation
"""


@pytest.mark.parametrize("on_timeout", ["fail", "skip"])
def test_a_reviewer_slower_than_the_hook_times_out_within_its_budget(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch, on_timeout: str
) -> None:
    monkeypatch.setenv("ONLOOKER_HOOK_TIMEOUT", "5")  # the budget is 5 - 3 = 2 seconds
    with ScriptedEndpoint(latency=30) as endpoint:
        root = make_project(tmp_path, {"onlooker.yaml": CONFIG.format(
            on_timeout=on_timeout, model=endpoint.spec())})  # fmt: skip
        started = time.monotonic()
        reply = answer({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": str(root),
                        "hook_event_name": "UserPromptSubmit", "prompt": "fix the bug"})  # fmt: skip
        waited = time.monotonic() - started
    assert waited < 5
    if on_timeout == "fail":
        assert reply["decision"] == "block"
        assert "Slow Reviewer timed out" in reply["reason"]
    else:
        assert "decision" not in reply
    with Store(onlooker_home) as store:
        assert store.runs.last("Slow Reviewer", "s1") == (
            "timeout", "ModelTimeout: no answer within 2s",
        )  # fmt: skip
