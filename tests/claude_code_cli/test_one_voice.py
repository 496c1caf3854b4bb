"""Eight identical failing calls in the real Claude Code: what the model was sent after them is one
voice for the episode (Stall and Error Cascade together), at most two messages and 900 characters
in all, every finding with an id the observations tool accepts, and the line on acting by id once."""

from __future__ import annotations

import json
import re

import pytest
from agent import Agent

from onlooker.core.message import INTRODUCTION
from onlooker.testing import AnthropicEndpoint, ToolUse

FAILING = ToolUse("Bash", {"command": "python3 tests/test_auth.py -q"})
TEST = (
    "import sys\n"
    "print('FAILED tests/test_auth.py::test_login - AssertionError: assert 401 == 200')\n"
    "print('1 failed, 4 passed in 0.31s')\n"
    "sys.exit(1)\n"
)
IDS = re.compile(r"\[ids? ([0-9a-f]{8}(?:, [0-9a-f]{8})*)\]")


@pytest.mark.slow
def test_eight_identical_failures_are_one_voice_with_ids(agent: Agent) -> None:
    agent.install()
    agent.write("tests/test_auth.py", TEST)
    with AnthropicEndpoint([FAILING] * 8) as api:
        run = agent.run(api, "Make the auth tests pass.")
    assert run.text == "Done."

    after = api.turns[1:9]  # the request after call n carries what the hooks added after it
    assert all("assert 401 == 200" in list(t.tool_results())[-1][1] for t in after)
    sent = api.turns[-1].hook_context("PostToolUseFailure")  # all of them, in the history
    assert sum(c.count("[Trajectory Assessment") for c in sent) <= 2
    assert sum(len(c) for c in sent) <= 900, sent
    first = sent[0]
    assert first.startswith("[Trajectory Assessment - Stall, Error Cascade]")
    assert "failed with the same error 4 times (calls 1, 2, 3, 4)" in first
    assert "assert 401 == 200" in first
    assert sum(INTRODUCTION in c for c in sent) == 1

    lines = [line for c in sent for line in c.splitlines() if line.startswith("• ")]
    assert lines and all(IDS.search(line) for line in lines)
    ids = {i for line in lines for i in IDS.findall(line)[0].split(", ")}
    shown = agent.onlooker("observations", "show", *sorted(ids), "--json")
    found = json.loads(shown.stdout)
    listed = found if isinstance(found, list) else found["observations"]
    assert {o["id"][:8] for o in listed} == ids
    assert {o["observer"] for o in listed} == {"Stall", "Error Cascade"}
