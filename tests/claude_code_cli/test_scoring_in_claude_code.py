"""Session scores from the real Claude Code, judged by a scripted OpenAI-compatible endpoint: a
subagent is scored when it stops, from its own transcript; sessions that only ran onlooker's own
slash commands are not scored; a judge that fails (HTTP 500, a wrong schema, nothing) leaves the
real score in place and is shown as a failed scoring."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agent import Agent, wait_for

from onlooker.scoring import JOB_KIND
from onlooker.store import Store
from onlooker.testing import AnthropicEndpoint, ClaudeCode, Text, ToolUse
from onlooker.testing.openai_endpoint import ScriptedEndpoint

pytestmark = pytest.mark.slow

WEAK = "edits files without reading them first"
DELEGATE = ToolUse(
    "Agent",
    {
        "description": "Find the config",
        "prompt": "List the files in the project and say where the config is.",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    },
)
SUBAGENT = [
    ToolUse("Bash", {"command": "ls settings", "description": "List the settings folder"}),
    Text("The config is settings/app.toml."),
]


def card(score: float) -> dict[str, Any]:
    names = ("instruction_following", "completeness", "proactiveness", "code_quality",
             "communication")  # fmt: skip
    return {"overall_score": score, "categories": dict.fromkeys(names, score),
            "strengths": ["clear summaries"], "weaknesses": [WEAK]}  # fmt: skip


def history(agent: Agent) -> dict[str, Any]:
    return dict(json.loads(agent.onlooker("observer", "history", "--json").stdout))


def run(agent: Agent, api: AnthropicEndpoint, plugin: Path, prompt: str) -> str:
    cli = ClaudeCode(api, agent.home, executable=agent.claude, allowed_tools="Read Bash Agent")
    done = cli.run(prompt, cwd=agent.project, args=["--plugin-dir", str(plugin)])
    assert done.returncode == 0, done.stderr[-2000:]
    return done.session_id


def scored_or_settled(agent: Agent, session_id: str) -> bool:
    with Store(agent.onlooker_home) as store:
        return not store.jobs.unfinished(JOB_KIND, session_id)


def test_subagents_are_scored_and_onlookers_own_commands_are_not(
    agent: Agent, tmp_path: Path
) -> None:
    agent.write("settings/app.toml", "debug = true\n")
    plugin = tmp_path / "onlooker-plugin"
    agent.onlooker("install", "claude-code", "--plugin", str(plugin))
    with ScriptedEndpoint(reply=card(0.45)) as judge:
        agent.write(".onlooker/config.yaml",
                    f'scoring:\n  model: "{judge.spec()}"\n  retries: 0\n')  # fmt: skip
        with AnthropicEndpoint([DELEGATE], subagent_script=SUBAGENT) as api:
            main = run(agent, api, plugin, "Where is the config?")
        wait_for(lambda: len(history(agent)["sessions"]) == 2, 90, "both sessions scored")
        rows = {r["agent_type"]: r for r in history(agent)["sessions"]}
        child = rows["subagent"]
        assert child["session_id"].startswith(f"{main}/")
        assert child["agent_name"] == "general-purpose" and child["parent_session_id"] == main
        asked = [str(r["messages"][-1]["content"]) for r in judge.requests]
        (of_child,) = [a for a in asked if "ls settings" in a]  # judged from its own session
        assert "List the files in the project and say where the config is." in of_child
        assert "The config is settings/app.toml." in of_child
        calls = len(judge.requests)

        with AnthropicEndpoint() as api:
            commands = [run(agent, api, plugin, f"/onlooker:{name}")
                        for name in ("status", "history", "suggest")]  # fmt: skip
        for session_id in commands:
            wait_for(lambda s=session_id: scored_or_settled(agent, s), 60, "its job to settle")
        assert len(judge.requests) == calls  # no judge call for onlooker's own commands
        assert {r["session_id"] for r in history(agent)["sessions"]} == {main, child["session_id"]}

        # A failing judge: the real score stays, the failure is shown with its reason.
        for reply, reason in (((500, "upstream broke"), "500"),
                              ({"no": "card"}, "InvalidOutput"), ((200, ""), "")):  # fmt: skip
            judge.reply = reply
            failed = agent.onlooker("observer", "score", main, check=False)
            assert failed.returncode != 0 and "failed" in failed.stderr + failed.stdout
            assert "its score stays 45%" in failed.stderr + failed.stdout
            shown = history(agent)
            assert {r["session_id"]: r["score"] for r in shown["sessions"]}[main] == 0.45
            assert [f["session_id"] for f in shown["failed"]] == [main]
            assert reason in shown["failed"][0]["reason"]
        status = agent.onlooker("observer", "status").stdout
        assert WEAK in status and "scoring failed (no score)" in status
        assert "50%" not in status and "50%" not in agent.onlooker("observer", "history").stdout


def test_with_auto_on_a_rollback_sticks_and_keeps_a_hand_edit(agent: Agent, tmp_path: Path) -> None:
    agents_md = agent.write("AGENTS.md", "# Rules\nKeep diffs small.\n")
    agent.install()
    low = card(0.3) | {"suggested_agents_md_update": "Read a file before editing it"}
    with ScriptedEndpoint(reply=low) as judge:
        agent.write(".onlooker/config.yaml",
                    f'scoring:\n  model: "{judge.spec()}"\n  retries: 0\n'
                    "  min_observations_for_update: 1\n  auto_update_agents_md: true\n")  # fmt: skip
        with AnthropicEndpoint() as api:
            agent.run(api, "Tidy the code.")
        wait_for(lambda: "Read a file before editing it" in agents_md.read_text(), 90, "auto")
        # A hand edit after the applied improvement: the rollback keeps it.
        agents_md.write_text(agents_md.read_text().replace("Keep diffs small.\n",
                                                            "Keep diffs small.\nUse tabs.\n"))  # fmt: skip
        rolled = agent.onlooker("observer", "rollback").stdout
        assert "Not suggested again" in rolled and WEAK in rolled
        assert agents_md.read_text() == "# Rules\nKeep diffs small.\nUse tabs.\n"
        calls = len(judge.requests)
        with AnthropicEndpoint() as api:
            second = agent.run(api, "Tidy it again.")
        wait_for(lambda: len(judge.requests) > calls, 90, "the next low session's score")
        wait_for(lambda: scored_or_settled(agent, second.session_id), 60, "its job to settle")
    assert agents_md.read_text() == "# Rules\nKeep diffs small.\nUse tabs.\n"  # not applied again
    records = history(agent)["improvements"]
    assert [(r["status"], r["pattern"]) for r in records] == [("rolled_back", WEAK)]
