"""The compliance verifier through the real hook command judges each subagent by its own calls:
subagents side by side answer each for their own report, and a report written long before the
stop still counts (the journal keeps every call; the session only the latest ones)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hook_runner import answer, make_project

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
    return answer({"session_id": "s-own", "transcript_path": "/tmp/s-own.jsonl", "cwd": str(app),
                   "hook_event_name": event, **fields})  # fmt: skip


def stop(app: Path, agent: str) -> dict[str, Any]:
    return hook(app, "SubagentStop", agent_id=agent, agent_type="report-writer",
                stop_hook_active=False, agent_transcript_path=f"/tmp/{agent}.jsonl",
                last_assistant_message="Done.")  # fmt: skip


def test_parallel_subagents_answer_each_for_its_own_report(tmp_path: Path) -> None:
    """Two report-writers run side by side: the one that wrote its report passes; the other is
    sent back naming only its own missing report, though the first one's is new in the folder."""
    app = make_project(tmp_path, {"onlooker.yaml": CONFIG})
    hook(app, "SubagentStart", agent_id="w1", agent_type="report-writer")
    hook(app, "SubagentStart", agent_id="w2", agent_type="report-writer")
    report = app / "work_products" / "q3-brief.md"
    report.parent.mkdir()
    report.write_text("# Q3 brief\n\nRevenue grew four percent.\n")
    hook(app, "PostToolUse", agent_id="w1", agent_type="report-writer", tool_name="Write",
         tool_use_id="toolu_w1", tool_input={"file_path": str(report), "content": "…"},
         tool_response={"type": "create", "filePath": str(report)})  # fmt: skip

    blocked = stop(app, "w2")
    assert blocked["decision"] == "block"
    assert "- work_products/*.md: no such file written by this agent" in blocked["reason"]
    assert "- a call of the tool Write: none was made" in blocked["reason"]
    assert "q3-brief" not in blocked["reason"]
    assert stop(app, "w1") == {}


def test_a_report_written_long_before_the_stop_still_counts(tmp_path: Path) -> None:
    """The subagent's session keeps its latest 100 calls; its journal keeps them all."""
    app = make_project(tmp_path, {"onlooker.yaml": CONFIG})
    hook(app, "SubagentStart", agent_id="w3", agent_type="report-writer")
    report = app / "work_products" / "long.md"
    report.parent.mkdir()
    report.write_text("# Long\n\nWritten first, then a long look around.\n")
    hook(app, "PostToolUse", agent_id="w3", agent_type="report-writer", tool_name="Write",
         tool_use_id="toolu_w3", tool_input={"file_path": str(report), "content": "…"})  # fmt: skip
    for n in range(101):
        hook(app, "PostToolUse", agent_id="w3", agent_type="report-writer", tool_name="Read",
             tool_use_id=f"toolu_r{n}", tool_input={"file_path": str(report)})  # fmt: skip
    assert stop(app, "w3") == {}
