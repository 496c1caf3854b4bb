"""The hook service killed in the middle of a real Claude Code session: the session finishes,
nothing blocks, the next hook starts a new service, and the session's state survives."""

from __future__ import annotations

import os
import signal

import pytest
from agent import Agent, wait_for

from onlooker.daemon.hookd import running_pid
from onlooker.daemon.spool import spool_entries
from onlooker.testing import AnthropicEndpoint, MessagesRequest, ToolUse

STALL = "[Trajectory Assessment - Stall"
FAILING = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})


@pytest.mark.slow
def test_a_killed_service_is_restarted_by_the_next_hook(agent: Agent) -> None:
    agent.install()
    killed: list[int] = []

    def kill_then_call(request: MessagesRequest) -> ToolUse:
        """Before the third call: SIGKILL the service that answered the first two."""
        pid = running_pid(agent.onlooker_home)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: running_pid(agent.onlooker_home) is None, 10, "the service to die")
        killed.append(pid)
        return FAILING

    script = [FAILING, FAILING, kill_then_call, FAILING, FAILING]
    with AnthropicEndpoint(script) as api:
        run = agent.run(api, "Read the plan and follow it.")

    assert run.text == "Done." and run.seconds < 60
    restarted = running_pid(agent.onlooker_home)
    assert killed and restarted is not None and restarted != killed[0]
    # The new service picked the session up where the old one left it: call 4 still makes the
    # fourth identical failure, and the warning comes once.
    after = api.turns[1:6]
    assert [sum(STALL in c for c in t.hook_context("PostToolUseFailure")) for t in after] == [
        0,
        0,
        0,
        1,
        1,
    ]
    records = agent.journal(run.session_id)
    assert [r["kind"] for r in records].count("tool_call") == 5
    assert "session_ended" in [r["kind"] for r in records]
    assert spool_entries(agent.onlooker_home) == ()  # no hook input was lost
