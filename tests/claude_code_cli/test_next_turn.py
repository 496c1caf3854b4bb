"""The next-turn summary in the real Claude Code: at UserPromptSubmit the open observations come
with the prompt, and again only when they changed; a run's trajectory findings end with it."""

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

    # The run's trajectory findings belonged to it: its end resolved them, so the resumed
    # session starts clean.
    assert prompt_context("What now?") == []

    for observer, text in (("Code Reviewer", "Bare except hides errors"),
                           ("Security", "Token compared with ==")):  # fmt: skip
        agent.onlooker("observations", "add", text, "--observer", observer, "--severity", "high")
    opened = prompt_context("And now?")
    assert len(opened) == 1
    assert "Active Observations: 2 open" in opened[0]
    assert "**Code Reviewer**" in opened[0] and "**Security**" in opened[0]

    assert prompt_context("Anything else?") == opened  # unchanged: not sent again

    listed = json.loads(agent.onlooker("observations", "list", "--json").stdout)
    review = next(o for o in listed["observations"] if o["observer"] == "Code Reviewer")
    agent.onlooker("observations", "resolve", review["id"], "--note", "fixed in a.py")

    changed = prompt_context("Once more?")
    assert changed[:1] == opened and len(changed) == 2
    assert "Active Observations: 1 open" in changed[1]
    assert "**Code Reviewer**" not in changed[1] and "**Security**" in changed[1]
