"""A loop of identical failing calls in the real Claude Code: the Stall warning reaches the model
once, after the call that made it true, within Claude Code's 10,000-character hook limit."""

from __future__ import annotations

import pytest
from agent import Agent

from onlooker.testing import AnthropicEndpoint, ToolUse

STALL = "[Trajectory Assessment - Stall"
FAILING = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})


@pytest.mark.slow
def test_the_stall_warning_reaches_the_model_once(agent: Agent) -> None:
    agent.install()
    with AnthropicEndpoint([FAILING] * 5) as api:
        run = agent.run(api, "Read the plan and follow it.")

    # Turn n+1 is the request after call n: it carries call n's result and what the hooks added.
    after = api.turns[1:6]
    assert len(after) == 5 and run.text == "Done."
    for turn in after:
        assert "cat: notes/plan.txt: No such file or directory" in list(turn.tool_results())[-1][1]
    delivered = [turn.hook_context("PostToolUseFailure") for turn in after]
    stall_counts = [sum(STALL in context for context in contexts) for contexts in delivered]
    assert stall_counts == [0, 0, 0, 1, 1]  # said after call 4, then only kept in the history
    warning = next(c for c in delivered[3] if STALL in c)
    assert "failed with the same error 4 times (calls 1, 2, 3, 4)" in warning
    assert len(warning) < 10_000
    assert after[-1].text.count(STALL) == 1  # the model saw it once in all

    kinds = [record["kind"] for record in agent.journal(run.session_id)]
    assert kinds.count("tool_call") == 5 and "turn_ended" in kinds
