"""Memory with no API key in onlooker: extraction runs through the user's own Claude Code
(`memory.model: claude-code:haiku`), end to end in the real CLI against the scripted endpoint.

Session 1 does real work; its hooks capture the tool events; at its end the worker runs a nested
`claude -p` (the same CLI, authenticated as the user's is: here the endpoint's base URL and key,
inherited through the hook service and worker, never read by onlooker). That request carries the
compressed events and no tools; its answer becomes memories, and session 2 starts with them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent import Agent, wait_for

from onlooker.testing import AnthropicEndpoint, Text, ToolUse
from onlooker.testing.messages_request import MessagesRequest

BUGGY = 'print("hello, " + name)\n'
FIXED = 'name = "world"\nprint("hello, " + name)\n'
RUN = {"command": "python3 src/greet.py", "description": "Run the greeting"}
WORK = [
    ToolUse("Write", {"file_path": "src/greet.py", "content": BUGGY}),
    ToolUse("Bash", RUN),
    ToolUse("Edit", {"file_path": "src/greet.py", "old_string": BUGGY, "new_string": FIXED}),
    ToolUse("Bash", RUN),
    Text("The greeting runs now."),
]
EXTRACTION = "You keep the memory of a software project"
MEMORY = {
    "title": "greet.py needs name defined",
    "content": "src/greet.py failed with NameError until `name` was defined; it runs since.",
}


def is_extraction(request: MessagesRequest) -> bool:
    return EXTRACTION in request.system


def side(request: MessagesRequest) -> str:
    """Claude Code's own side requests (a title) get text; onlooker's extraction gets memories."""
    return json.dumps({"memories": [MEMORY]}) if is_extraction(request) else "Scripted session"


@pytest.mark.slow
def test_memories_come_through_the_users_own_claude_code(agent: Agent) -> None:
    agent.install()
    agent.write(".onlooker/config.yaml", 'memory:\n  model: "claude-code:haiku"\n')
    env = {"ONLOOKER_CLAUDE_CLI": str(agent.claude)}
    with AnthropicEndpoint(WORK, side=side) as api:
        first = agent.run(api, "Write a greeting script and make it run.", env=env)
        assert (agent.project / "src/greet.py").read_text() == FIXED

        def memories() -> list[dict[str, Any]]:
            found = agent.onlooker("memory", "search", "greet", "--json").stdout
            return list(json.loads(found)["memories"])

        wait_for(lambda: len(memories()) == 1, 120, "the memory extracted through Claude Code")

    (asked,) = [r for r in api.requests if r.is_messages and is_extraction(r)]
    assert asked.tools == []
    events = asked.last_user_text
    assert "Ran `python3 src/greet.py` → exit 1: NameError" in events
    assert "Ran `python3 src/greet.py` → exit 0" in events
    assert "src/greet.py (1 lines)" in events  # a compressed line, not the file written
    (memory,) = memories()
    assert memory["title"] == MEMORY["title"]

    with AnthropicEndpoint([Text("We fixed the greeting last time.")]) as api:
        second = agent.run(api, "What did we do last time?")
    (context,) = api.turns[0].hook_context("SessionStart")
    assert f"- {MEMORY['title']}: {MEMORY['content']}" in context.splitlines()

    # the nested run left no session of its own in the user's history
    kept = {p.stem for p in (agent.home / ".claude" / "projects").rglob("*.jsonl")}
    assert kept == {first.session_id, second.session_id}
