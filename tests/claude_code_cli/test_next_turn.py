"""Open observations in the real Claude Code across `claude -p` runs of one session: each run
ends (SessionEnd expires its episodes) and each `--resume` starts with SessionStart, where the
session's open observations come back with their ids (continuity), then the prompt. They are
said when they changed, never twice, and the prompt's summary does not repeat them."""

from __future__ import annotations

import json

import pytest
from agent import Agent

from onlooker.testing import AnthropicEndpoint, MessagesRequest, ToolUse

FAILING = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})
HEAD = "Still open in this session"


@pytest.mark.slow
def test_open_observations_are_said_again_only_when_they_changed(agent: Agent) -> None:
    agent.install()
    with AnthropicEndpoint([FAILING] * 5) as api:
        first = agent.run(api, "Read the plan and follow it.")
    assert api.turns[0].hook_context("UserPromptSubmit") == []  # nothing open yet

    def resumed(prompt: str) -> MessagesRequest:
        with AnthropicEndpoint() as api:
            agent.run(api, prompt, resume=first.session_id)
        assert prompt in api.turns[0].text
        assert api.turns[0].hook_context("UserPromptSubmit") == []  # never a second telling
        return api.turns[0]

    def lists(request: MessagesRequest) -> list[str]:
        return [c for c in request.hook_context("SessionStart") if HEAD in c]

    # The run's episodes expired with it; the resumed session hears them again, with ids.
    told = lists(resumed("What now?"))
    assert len(told) == 1 and "Stall" in told[0]

    for observer, text in (("Code Reviewer", "Bare except hides errors"),
                           ("Security", "Token compared with ==")):  # fmt: skip
        agent.onlooker("observations", "add", text, "--observer", observer, "--severity", "high")
    opened = lists(resumed("And now?"))
    assert len(opened) == 2 and opened[0] == told[0]
    assert "**" not in opened[1] and "] " in opened[1]
    assert "Code Reviewer: Bare except hides errors" in opened[1]
    assert "Security: Token compared with ==" in opened[1]

    assert lists(resumed("Anything else?")) == opened  # unchanged: not sent again

    listed = json.loads(agent.onlooker("observations", "list", "--json").stdout)
    review = next(o for o in listed["observations"] if o["observer"] == "Code Reviewer")
    agent.onlooker("observations", "resolve", review["id"], "--note", "fixed in a.py")

    changed = lists(resumed("Once more?"))
    assert changed[:2] == opened and len(changed) == 3
    assert "Bare except" not in changed[2] and "Token compared with ==" in changed[2]
