"""A reviewer whose model starts the user's agent CLI (`claude-code:`, `opencode:`) never runs on
the hook path: under execution.mode parallel it is queued for the worker while the others run in
the hook; `config validate`, `install` and `doctor` say so, naming the field and the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hook_runner import make_project
from test_reviews import ISSUE, answer, context, post_tool_use

from onlooker import FixedClock
from onlooker.core.triggers import Trigger
from onlooker.hosts.claude_code.hook import HookHandler
from onlooker.llm import Model
from onlooker.reviewers.config import ReviewerConfig, ReviewSetup
from onlooker.reviewers.execution import Execution
from onlooker.reviewers.handoff import REVIEW_JOB
from onlooker.reviewers.watch import FilesTarget
from onlooker.store import Store
from onlooker.testing import ScriptedModel

ONLOOKER = Path(sys.executable).with_name("onlooker")


def reviewer(name: str, model: str) -> ReviewerConfig:
    return ReviewerConfig(
        name=name, role=f"{name} review", focus="Timing attacks", model=model,
        watch=(FilesTarget(("src/**/*.py",)),), timeout=5.0,
    )  # fmt: skip


@pytest.mark.parametrize("spec", ["claude-code:haiku", "opencode:anthropic/claude-haiku-4-5"])
def test_a_cli_model_reviewer_is_queued_while_the_others_run_in_the_hook(
    tmp_path: Path, spec: str
) -> None:
    root = make_project(tmp_path, {"src/a.py": "ok = password == given\n"})
    asked: list[str] = []
    scripted = ScriptedModel([{"observations": [ISSUE]}])

    def models(model: str) -> Model:
        asked.append(model)
        return scripted

    setup = ReviewSetup(
        (reviewer("Security", "scripted:m"), reviewer("Deep", spec)),
        Execution(mode="parallel"), Trigger.on("tool_call"),
    )  # fmt: skip
    with Store(tmp_path / "home") as store:
        made = HookHandler(store, clock=FixedClock(), reviewers=lambda _: setup, models=models)
        found = answer(made, post_tool_use(root, 1))
        assert "[Trajectory Assessment - Security]" in context(found)  # ran in the hook
        assert asked == ["scripted:m"]  # the CLI model was never built on the hook path
        job = store.jobs.claim("test-worker")
        assert job is not None and job.kind == REVIEW_JOB
        assert job.payload["reviewer"]["name"] == "Deep"
        assert job.payload["reviewer"]["model"] == spec
        assert store.jobs.claim("test-worker") is None  # Security was not queued as well


CONFIG = """\
behaviors:
  - module: hooks-observations
    config:
      execution:
        mode: parallel
      observers:
        - name: Quick
          role: r
          focus: f
          model: openai-compatible:http://127.0.0.1:9/v1#m
          watch:
            - type: files
              paths: ["src/**/*.py"]
        - name: Deep
          role: r
          focus: f
          model: claude-code:haiku
          watch:
            - type: files
              paths: ["src/**/*.py"]
"""


def test_validate_install_and_doctor_name_the_field_and_the_file(
    tmp_path: Path, onlooker_home: Path
) -> None:
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".onlooker").mkdir()
    config = project / ".onlooker" / "config.yaml"
    config.write_text(CONFIG)
    note = (
        f"{config}: behaviors[0].config.observers[1].model: claude-code:haiku starts your "
        "agent's CLI, which takes seconds, so observer 'Deep' runs in the background, not in "
        "the hook (execution.mode parallel is for models that answer within it)"
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(ONLOOKER), *args], cwd=project, capture_output=True,
                              text=True, timeout=120)  # fmt: skip

    validated = run("config", "validate")
    assert validated.returncode == 0 and f"note: {note}" in validated.stdout.splitlines()
    assert json.loads(run("config", "validate", "--json").stdout)["notes"] == [note]
    installed = run("install", "opencode")
    assert f"warning: {note}" in installed.stderr.splitlines()
    doctor = run("doctor", "--project", str(project))
    assert note in doctor.stdout
    assert json.loads(run("doctor", "--json", "--project", str(project)).stdout)["config"][
        "notes"
    ] == [note]
    config.write_text(CONFIG.replace("mode: parallel", "mode: background"))
    assert "note:" not in run("config", "validate").stdout
