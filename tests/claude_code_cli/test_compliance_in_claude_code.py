"""The compliance verifier inside the real Claude Code: a report-writer subagent stops without its
report, is told by the SubagentStop block what is missing, writes it, and may stop; the verdicts
recorded are retry then pass, and the report is archived by the work-product side effect."""

from __future__ import annotations

import json

import pytest
from agent import Agent, wait_for

from onlooker.side_effects import Archive, Limits
from onlooker.store import Store
from onlooker.testing import AnthropicEndpoint, Text, ToolUse

CONFIG = """
side_effects:
  rules:
    - action: save_work_product
      path: "work_products/*"
compliance:
  agents:
    report-writer:
      artifacts:
        - glob: "work_products/*.txt"
          min_size: 60
          pattern: "^# "
      tools: [Write]
"""
AGENT = """---
name: report-writer
description: Writes the report it is asked for into work_products/.
tools: Write, Read
---
You write reports as Markdown files under work_products/.
"""
REPORT = "# Q3 report\n\nRevenue grew 4% on the quarter; costs stayed flat; no incidents.\n"
DELEGATE = ToolUse(
    "Agent",
    {
        "description": "Write the Q3 report",
        "prompt": "Write the Q3 report.",
        "subagent_type": "report-writer",
        "run_in_background": False,
    },
)


@pytest.mark.slow
def test_a_subagent_that_forgets_its_report_is_told_why_and_writes_it(agent: Agent) -> None:
    agent.write("onlooker.yaml", CONFIG)
    agent.write(".claude/agents/report-writer.md", AGENT)
    agent.install()
    # Claude Code 2.1.328 refuses a subagent's Write of REPORT*.md, SUMMARY*.md, FINDINGS*.md or
    # ANALYSIS*.md ("Subagents should return findings as text"); a text file is written.
    report = agent.project / "work_products" / "q3.txt"
    subagent = [
        Text("The quarter went well."),  # stops without writing the report
        ToolUse("Write", {"file_path": str(report), "content": REPORT}),
        Text("The report is in work_products/q3.txt."),
    ]
    with AnthropicEndpoint([DELEGATE], subagent_script=subagent) as api:
        run = agent.run(api, "Get the Q3 report written.")

    assert len(api.subagent_turns) == 3
    told = api.subagent_turns[1].last_user_text
    assert told.startswith("Stop hook feedback:\n")
    assert "work_products/*.txt: no such file" in told
    assert "a call of the tool Write: none was made" in told
    assert report.read_text() == REPORT

    with Store(agent.onlooker_home) as store:
        verdicts = store.effects.verdicts(agent.key, run.session_id)
    assert [(v.agent_type, v.verdict, v.attempt) for v in verdicts] == [
        ("report-writer", "retry", 1),
        ("report-writer", "pass", 2),
    ]
    status = json.loads(agent.onlooker("status", "--json").stdout)
    assert status["compliance"]["by_verdict"] == {"retry": 1, "pass": 1}

    folder = Archive(agent.onlooker_home / "archive", agent.key, run.session_id, Limits()).folder
    archived = folder / "files" / "work_products" / "q3.txt"
    wait_for(archived.exists, 60, "the report to be archived")
    assert archived.read_text() == REPORT
