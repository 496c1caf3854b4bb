"""Continuity in the real Claude Code: a `claude -p` run leaves an open Stall and ends (its
SessionEnd expires it, truthfully: nobody acted); `claude --resume` brings the session's open
observations back with their short ids, once; after `/compact` they come back again, and the
resume after it does not repeat them. A resumed session is not told the memories it made."""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent import Agent, wait_for

from onlooker.core.message import INTRODUCTION
from onlooker.memory._memories import Memories
from onlooker.store import FindingQuery, Store, short_id
from onlooker.testing import AnthropicEndpoint, ToolUse

FAILING = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})
HEAD = "Still open in this session"
MEMORY = "recent context (conversation-memory)"


def findings(agent: Agent, session: str) -> list[Any]:
    with Store(agent.onlooker_home) as store:
        page = store.query(FindingQuery(project=agent.key, session_id=session))
    return [o.finding for o in page.observations]


def listed(agent: Agent, status: str) -> list[dict[str, Any]]:
    done = agent.onlooker("observations", "list", "--status", status, "--json")
    return list(json.loads(done.stdout)["observations"])


@pytest.mark.slow
def test_open_observations_come_back_once_after_resume_and_compaction(agent: Agent) -> None:
    agent.install()
    with AnthropicEndpoint([FAILING] * 5) as api:
        first = agent.run(api, "Read the plan and follow it.")
    session = first.session_id
    assert any("[Trajectory Assessment - Stall" in c for c in api.turns[5].hook_context())

    # the -p run sent SessionEnd: its episodes expired, nobody resolved them
    ended = findings(agent, session)
    assert any(f.observer == "Stall" for f in ended)
    assert {(f.status, f.resolution_note) for f in ended} == {("expired", "the session ended")}
    assert {o["id"] for o in listed(agent, "expired")} == {f.id for f in ended}
    assert listed(agent, "resolved") == []
    status = json.loads(agent.onlooker("status", "--json").stdout)
    assert status["by_status"] == {"expired": len(ended)}

    def own_memories() -> list[str]:  # the run's own, extracted by the worker after its end
        with Store(agent.onlooker_home) as store:
            return [m.title for m in Memories(store).latest_of_session(session, 20)]

    wait_for(own_memories, 60, "the session's memories")
    own = own_memories()

    # claude --resume: the open observations come back with their short ids, once
    with AnthropicEndpoint() as api:
        agent.run(api, "Go on.", resume=session)
    (request,) = api.turns
    told = [c for c in request.hook_context("SessionStart") if HEAD in c]
    assert len(told) == 1 and request.text.count(HEAD) == 1
    text = told[0]
    assert "said again after resuming" in text and len(text) < 10_000
    for f in ended:
        assert f"] {short_id(f.id)} {f.observer}: " in text
    assert "cat notes/plan.txt" in text
    assert INTRODUCTION in text  # the line on acting by id (Claude Code may add text after it)
    assert MEMORY not in request.text  # its own memories are in its transcript already
    # a memory's digest line (a rule memory's title is its command, which the transcript holds)
    assert own and not any(f"- {title}: " in request.text for title in own)
    assert {f.status for f in findings(agent, session)} == {"expired"}  # that run ended too

    # /compact: the list comes back after the compaction; the resume after it says nothing new
    summary = "The agent tried to read notes/plan.txt five times; the file is missing."
    with AnthropicEndpoint(summary=summary) as api:
        agent.run(api, "/compact", resume=session)
    assert len(api.compactions) == 1
    with AnthropicEndpoint() as api:
        agent.run(api, "What next?", resume=session)
    (after,) = api.turns
    assert summary in after.text
    compacted = [c for c in after.hook_context("SessionStart") if HEAD in c]
    assert len(compacted) == 1 and after.text.count(HEAD) == 1
    assert "said again after compaction" in compacted[0]
    assert all(short_id(f.id) in compacted[0] for f in ended)
    assert "Active Observations" not in after.text  # nor the prompt's summary of the same

    kinds = [r["kind"] for r in agent.journal(session)]
    assert kinds.count("finding_reopened") >= 2 * len(ended)
    assert ("session_started", "compact") in [
        (r["kind"], r.get("source")) for r in agent.journal(session)
    ]
