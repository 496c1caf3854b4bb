"""The next-turn summary in the real Claude Code: at UserPromptSubmit the open observations come
with the prompt, and again only when they changed."""

from __future__ import annotations

import json

import pytest
from agent import Agent

from onlooker.testing import AnthropicEndpoint, ToolUse

FAILING = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})


@pytest.mark.slow
def test_the_summary_comes_at_the_next_prompt_only_when_it_changed(agent: Agent) -> None:
    agent.install()
    with AnthropicEndpoint([FAILING] * 5) as api:
        first = agent.run(api, "Read the plan and follow it.")
    assert api.turns[0].hook_context("UserPromptSubmit") == []  # nothing open yet

    def prompt_context(prompt: str) -> list[str]:
        with AnthropicEndpoint() as api:
            agent.run(api, prompt, resume=first.session_id)
        assert prompt in api.turns[0].text
        return api.turns[0].hook_context("UserPromptSubmit")

    opened = prompt_context("What now?")
    assert len(opened) == 1
    assert "Active Observations: 2 open" in opened[0]
    assert "**Stall**" in opened[0] and "**Error Cascade**" in opened[0]
    assert "failed with the same error 4 times" in opened[0]

    assert prompt_context("And now?") == opened  # unchanged: not sent again

    listed = json.loads(agent.onlooker("observations", "list", "--json").stdout)
    stall = next(o for o in listed["observations"] if o["observer"] == "Stall")
    agent.onlooker("observations", "resolve", stall["id"], "--note", "the plan was moved")

    changed = prompt_context("Once more?")
    assert changed[:1] == opened and len(changed) == 2
    assert "Active Observations: 1 open" in changed[1]
    assert "**Stall**" not in changed[1] and "**Error Cascade**" in changed[1]
