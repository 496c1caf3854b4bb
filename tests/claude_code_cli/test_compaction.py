"""Compaction in the real Claude Code, triggered headless with `claude -p /compact --resume ID`:
onlooker records it, and after it injects what specs/memory.md promises: only the memories the
session has not been shown yet, so nothing is injected twice."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from agent import Agent, start_context

from onlooker.memory import Extracted, Memories
from onlooker.store import Store
from onlooker.testing import AnthropicEndpoint, ToolUse

HEADER = "# [shop] recent context (conversation-memory)"


def remember(agent: Agent, title: str, content: str) -> None:
    with Store(agent.onlooker_home) as store:
        found = Extracted(title, content, datetime.now(UTC))
        Memories(store).remember([found], project=agent.key, session_id="an-earlier-session")


@pytest.mark.slow
def test_after_compact_only_memories_not_shown_yet_are_injected(agent: Agent) -> None:
    agent.install()
    remember(agent, "Tests need the fixture server", "Start it with `make fixtures` first.")
    with AnthropicEndpoint([ToolUse("Bash", {"command": "ls", "description": "List"})]) as api:
        first = agent.run(api, "Look around.")
    (started,) = start_context(api.turns[0])  # the service was not running yet
    assert started.startswith(HEADER) and "Tests need the fixture server" in started

    remember(agent, "Deploys go through staging", "Never push to production directly.")
    summary = "The user asked to look around; the agent listed the project folder."
    with AnthropicEndpoint(summary=summary) as api:
        compacted = agent.run(api, "/compact", resume=first.session_id)
    assert compacted.result.get("local_command") == "compact"
    assert len(api.compactions) == 1
    assert "Tests need the fixture server" in api.compactions[0].text  # summarised with the rest

    with AnthropicEndpoint() as api:
        agent.run(api, "What next?", resume=first.session_id)
    after = api.turns[0]
    assert summary in after.text
    contexts = after.hook_context("SessionStart")
    assert contexts and contexts[0].startswith(HEADER)
    assert "Deploys go through staging" in contexts[0]
    assert "Tests need the fixture server" not in "\n".join(contexts)  # shown before compaction
    assert after.text.count("Deploys go through staging") == 1

    kinds = [
        (r["kind"], r.get("source") or r.get("trigger")) for r in agent.journal(first.session_id)
    ]
    assert ("compacting", "manual") in kinds
    assert ("session_started", "compact") in kinds
