"""A parallel reviewer with `on_timeout: fail` in the real Claude Code: its timeout blocks the Stop,
and Claude Code goes on with the turn, the reason in front of the model; the stop after that is not
blocked again."""

from __future__ import annotations

import json

import pytest
from agent import Agent

from onlooker.testing import AnthropicEndpoint, Text
from onlooker.testing.openai_endpoint import ScriptedEndpoint

CONFIG = """\
behaviors:
  - module: hooks-observations
    config:
      hooks:
        - trigger: response:complete
      execution:
        mode: parallel
        timeout_per_observer: 5
        on_timeout: fail
      observers:
        - name: Slow Reviewer
          role: Code review
          focus: Anything that looks wrong
          model: "{model}"
          timeout: 5
          watch:
            - type: conversation
"""


@pytest.mark.slow
def test_a_timed_out_reviewer_blocks_the_stop_and_the_turn_goes_on(agent: Agent) -> None:
    agent.install()
    with ScriptedEndpoint(latency=30) as reviewer_model:
        agent.write(".onlooker/config.yaml", CONFIG.format(model=reviewer_model.spec("slow")))
        script = [Text("The work is finished."), Text("Noted: the review could not run.")]
        with AnthropicEndpoint(script) as api:
            run = agent.run(api, "Finish the work.")

    assert len(api.turns) >= 2, "Claude Code did not go on after the block"
    feedback = api.turns[1].texts("user")[-1]
    assert feedback.startswith("Stop hook feedback:\nonlooker: reviewer Slow Reviewer timed out")
    assert "on_timeout: fail" in feedback
    assert run.text == "Noted: the review could not run."
    # The turn went on and the agent wrote something new, so the reviewer ran again and timed out
    # again; a stop that goes on after a block (stop_hook_active) is not blocked again.
    assert len(api.turns) == 2
    assert reviewer_model.requests, "the reviewer never reached its model"
    status = json.loads(agent.onlooker("status", "--json").stdout)
    (runs,) = status["observer_runs"]
    assert runs["observer"] == "Slow Reviewer"
    assert runs["by_status"] == {"timeout": 2}
