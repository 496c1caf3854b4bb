"""A session that starts while no hook service runs, in the real Claude Code CLI: its SessionStart
hook does not wait for the service to import what answers hooks; the memory digest still reaches
the model in its first request (with the prompt's hook), and the start is recorded once, before
the prompt (specs/hook-service.md, "A cold start")."""

from __future__ import annotations

import pytest
from agent import Agent

from onlooker.daemon.hookd import running_pid
from onlooker.memory._memories import Extracted, Memories
from onlooker.store import Store
from onlooker.testing import AnthropicEndpoint, Text

DIGEST = "# [shop] recent context (conversation-memory)\n\n- Login needs a fresh token: Refresh."


@pytest.mark.slow
def test_a_cold_start_still_tells_the_first_request_the_memories(agent: Agent) -> None:
    agent.install()
    with Store(agent.onlooker_home) as store:
        memory = Extracted("Login needs a fresh token", "Refresh.", store.clock.now())
        Memories(store).remember([memory], project=agent.key, session_id="old")
    assert running_pid(agent.onlooker_home) is None
    with AnthropicEndpoint([Text("Noted.")]) as api:
        done = agent.run(api, "What do you know?")
    (first,) = api.turns
    assert first.hook_context("SessionStart") == []  # the start did not wait for the service
    (told,) = first.hook_context("UserPromptSubmit")
    assert told.startswith(DIGEST + "\n")  # (Claude Code's own words follow)
    kinds = [r["kind"] for r in agent.journal(done.session_id)]
    assert kinds.count("session_started") == 1 and kinds.count("user_prompt") == 1
    assert kinds.index("session_started") < kinds.index("user_prompt")
