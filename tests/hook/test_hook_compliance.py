"""The compliance verifier through the real hook command: a report-writer subagent that stops
without its report is sent back with a reason naming what is missing, at most twice; then it may
stop and a high finding is kept. Every verdict is data: `status`, `side-effects`, and `reindex`
rebuilds them from the journal."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hook_runner import ONLOOKER, answer, make_project

from onlooker.store import Store, project_for

pytestmark = pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike

CONFIG = """
compliance:
  agents:
    report-writer:
      artifacts:
        - glob: "work_products/*.md"
          min_size: 20
          pattern: "^# "
      tools: [Write]
"""


def hook(app: Path, event: str, **fields: Any) -> dict[str, Any]:
    return answer({"session_id": "s-cv", "transcript_path": "/tmp/s-cv.jsonl", "cwd": str(app),
                   "hook_event_name": event, **fields})  # fmt: skip


def stop(app: Path, agent: str, *, again: bool, kind: str = "report-writer") -> dict[str, Any]:
    return hook(app, "SubagentStop", agent_id=agent, agent_type=kind,
                stop_hook_active=again, agent_transcript_path=f"/tmp/{agent}.jsonl",
                last_assistant_message="Done.")  # fmt: skip


def cli(*args: str) -> Any:
    done = subprocess.run([ONLOOKER, *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_a_subagent_is_sent_back_until_it_writes_its_report(
    tmp_path: Path, onlooker_home: Path
) -> None:
    app = make_project(tmp_path, {"onlooker.yaml": CONFIG})
    hook(app, "SubagentStart", agent_id="a1", agent_type="report-writer")
    first = stop(app, "a1", again=False)
    assert first["decision"] == "block"
    assert "- work_products/*.md: no such file" in first["reason"]
    assert "- a call of the tool Write: none was made" in first["reason"]
    assert "retry 1 of 2" in first["reason"]

    report = app / "work_products" / "report.md"
    report.parent.mkdir()
    report.write_text("notes\n")  # too short, and no title
    hook(app, "PostToolUse", agent_id="a1", agent_type="report-writer", tool_name="Write",
         tool_use_id="toolu_r1", tool_input={"file_path": str(report), "content": "notes\n"})  # fmt: skip
    second = stop(app, "a1", again=True)
    assert second["decision"] == "block"
    assert "work_products/report.md: 6 bytes, at least 20 needed" in second["reason"]
    assert "Write" not in second["reason"]

    report.write_text("# Report\n\nEverything that was asked.\n")
    assert stop(app, "a1", again=True) == {}  # passes

    with Store(onlooker_home) as store:
        verdicts = [
            (v.agent_id, v.verdict, v.attempt) for v in store.effects.verdicts(project_for(app))
        ]
    assert verdicts == [("a1", "retry", 1), ("a1", "retry", 2), ("a1", "pass", 3)]


def test_after_two_retries_it_gives_up_with_a_high_finding_and_reindex_keeps_it(
    tmp_path: Path, onlooker_home: Path
) -> None:
    app = make_project(tmp_path, {"onlooker.yaml": CONFIG})
    hook(app, "SubagentStart", agent_id="a2", agent_type="report-writer")
    answers = [stop(app, "a2", again=n > 0) for n in range(4)]
    assert [a.get("decision") for a in answers] == ["block", "block", None, None]
    hook(app, "SubagentStart", agent_id="a3", agent_type="general-purpose")
    assert (
        stop(app, "a3", again=False, kind="general-purpose") == {}
    )  # no rule for its type: not checked

    status = cli("status", "--project", "app", "--json")
    assert status["compliance"]["by_verdict"] == {"retry": 2, "gave_up": 2}
    latest = [(v["agent_id"], v["verdict"], v["attempt"]) for v in status["compliance"]["latest"]]
    assert latest == [("a2", "retry", 1), ("a2", "retry", 2), ("a2", "gave_up", 3),
                      ("a2", "gave_up", 3)]  # fmt: skip
    high = [o for o in status["observations"] if o["severity"] == "high"]
    assert len(high) == 1 and high[0]["observer"] == "Compliance"  # seen twice, kept once
    assert "work_products/*.md: no such file" in high[0]["content"]

    text = subprocess.run([ONLOOKER, "status", "--project", "app"], capture_output=True,
                          text=True, check=True).stdout  # fmt: skip
    assert "Compliance verdicts: 0 pass, 2 retry, 2 gave_up" in text

    with Store(onlooker_home) as store:
        before = store.index.table_rows("compliance_verdicts")
    subprocess.run([ONLOOKER, "reindex"], capture_output=True, check=True)
    with Store(onlooker_home) as store:
        assert store.index.table_rows("compliance_verdicts") == before
