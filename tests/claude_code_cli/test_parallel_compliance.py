"""The shipped side-effects example inside the real Claude Code, with two report-writer subagents
running in parallel: each is judged by its own Write. The one that writes its report passes at
once; the one that stops without its report is sent back naming only its own missing report
(not the other's, new in the same folder), writes it, and passes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from agent import Agent

from onlooker.store import Store
from onlooker.testing import AnthropicEndpoint, Blocks, Reply, Text, ToolUse
from onlooker.testing.messages_request import MessagesRequest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FEEDBACK = "Stop hook feedback:"


def delegate(subject: str) -> ToolUse:
    return ToolUse(
        "Agent",
        {
            "description": f"Write the {subject} report",
            "prompt": f"Write the {subject} report.",
            "subagent_type": "report-writer",
            "run_in_background": False,
        },
    )


def report(subject: str) -> str:
    lines = [f"# {subject}", ""] + [
        f"Finding {n}: the {subject} figures held up." for n in range(6)
    ]
    return "\n".join(lines) + "\n"


def subagents(project: Path) -> Reply:
    """Each turn of either subagent, told apart by its own prompt: the Q3 writer writes at once;
    the Q4 writer first stops without writing (once the Q3 report is on disk), then writes when
    it is sent back."""
    q3 = project / "work_products" / "q3-revenue.md"
    q4 = project / "work_products" / "q4-outlook.md"

    def reply(request: MessagesRequest) -> Reply:
        diligent = "Q3 revenue" in request.texts("user")[0]
        target, subject = (q3, "Q3 revenue") if diligent else (q4, "Q4 outlook")
        wrote = any(name == "Write" for name, _ in request.tool_uses())
        if wrote:
            return Text(f"The report is in work_products/{target.name}.")
        if diligent or FEEDBACK in request.last_user_text:
            return ToolUse("Write", {"file_path": str(target), "content": report(subject)})
        deadline = time.monotonic() + 60
        while not q3.exists() and time.monotonic() < deadline:  # stop after the other wrote
            time.sleep(0.1)
        return Text("The Q4 outlook is steady.")

    return reply


@pytest.mark.slow
def test_parallel_report_writers_are_each_judged_by_their_own_report(agent: Agent) -> None:
    agent.write("onlooker.yaml", (EXAMPLES / "config" / "side-effects.yaml").read_text())
    agent.write(
        ".claude/agents/report-writer.md", (EXAMPLES / "agents" / "report-writer.md").read_text()
    )
    agent.install()
    both = Blocks((delegate("Q3 revenue"), delegate("Q4 outlook")))
    with AnthropicEndpoint([both], subagent_script=[subagents(agent.project)] * 8) as api:
        run = agent.run(api, "Get the Q3 revenue and Q4 outlook reports written.")

    turns = api.subagent_turns
    q3_turns = [t for t in turns if "Q3 revenue" in t.texts("user")[0]]
    q4_turns = [t for t in turns if "Q4 outlook" in t.texts("user")[0]]
    assert (len(q3_turns), len(q4_turns)) == (2, 3)
    assert max(q3_turns[0].received, q4_turns[0].received) < q3_turns[1].received  # in parallel
    assert not any(FEEDBACK in t.text for t in q3_turns)
    told = q4_turns[1].last_user_text
    assert told.startswith(FEEDBACK + "\n")
    assert "- work_products/*.md: no such file written by this agent" in told
    assert "- a call of the tool Write: none was made" in told
    assert "q3-revenue" not in told  # the other subagent's report is not this one's
    for name, subject in (("q3-revenue.md", "Q3 revenue"), ("q4-outlook.md", "Q4 outlook")):
        assert (agent.project / "work_products" / name).read_text() == report(subject)

    children = {
        r["agent_id"]: r["agent_type"]
        for r in agent.journal(run.session_id)
        if r["kind"] == "subagent_started"
    }
    written = {
        agent_id: [
            Path(c["input"]["file_path"]).name
            for c in agent.journal(f"{run.session_id}/{agent_id}")
            if c["kind"] == "tool_call" and c["tool"] == "Write"
        ]
        for agent_id in children
    }
    assert sorted(written.values()) == [["q3-revenue.md"], ["q4-outlook.md"]]
    with Store(agent.onlooker_home) as store:
        verdicts = store.effects.verdicts(agent.key, run.session_id)
    by_report = {
        written[agent_id][0]: [v.verdict for v in verdicts if v.agent_id == agent_id]
        for agent_id in children
    }
    assert by_report == {"q3-revenue.md": ["pass"], "q4-outlook.md": ["retry", "pass"]}
