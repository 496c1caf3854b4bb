"""Memory across two real Claude Code sessions: the first does real work and ends, the worker
extracts memories from what its hooks captured, and the second starts with them, within budget.

The extraction model is the project's `memory.model`, pointed at a scripted OpenAI-compatible
endpoint: the default local SmolLM2-135M writes well-formed memories whose content is of too little
worth to check against what happened. The scripted model keeps each event line it is sent as one
memory, so what reaches session 2 can be checked line by line against what session 1 did.
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

import pytest
from agent import Agent, wait_for

from onlooker.testing import AnthropicEndpoint, Text, ToolUse
from onlooker.testing.openai_endpoint import ScriptedEndpoint

BUGGY = 'print("hello, " + name)\n'
FIXED = 'name = "world"\nprint("hello, " + name)\n'
RUN = {"command": "python3 src/greet.py", "description": "Run the greeting"}
WORK = [
    ToolUse("Write", {"file_path": "src/greet.py", "content": BUGGY}),
    ToolUse("Bash", RUN),
    ToolUse(
        "Edit",
        {"file_path": "src/greet.py", "old_string": BUGGY, "new_string": FIXED},
    ),
    ToolUse("Bash", RUN),
    Text("The greeting runs now."),
]
HEADER = "# [shop] recent context (conversation-memory)"


def remember_each_event(body: dict[str, Any]) -> dict[str, Any]:
    """A faithful extraction model: every event line of the batch becomes one memory."""
    prompt = str(body["messages"][-1]["content"])
    lines = prompt.split("Events:\n", 1)[1].splitlines()
    events = [line.split(". ", 1)[1] for line in lines if ". " in line]
    return {"memories": [{"title": f"Step {n}", "content": e} for n, e in enumerate(events, 1)]}


@pytest.mark.slow
def test_the_next_session_starts_with_what_the_last_one_did(agent: Agent) -> None:
    agent.install()
    with ScriptedEndpoint(reply=remember_each_event) as memory_model:
        agent.write(".onlooker/config.yaml", f'memory:\n  model: "{memory_model.spec()}"\n')
        with AnthropicEndpoint(WORK) as api:
            first = agent.run(api, "Write a greeting script and make it run.")
        assert "NameError" in list(api.turns[2].tool_results())[-1][1]  # the work was real
        assert (agent.project / "src/greet.py").read_text() == FIXED

        def memories() -> list[dict[str, Any]]:
            found = agent.onlooker("memory", "search", "greet", "--json").stdout
            return list(json.loads(found)["memories"])

        wait_for(lambda: len(memories()) == 4, 90, "session 1's memories")

    asked = memory_model.requests[0]["messages"][-1]["content"]
    assert asked.count("src/greet.py") >= 4

    with AnthropicEndpoint([Text("We fixed the greeting last time.")]) as api:
        second = agent.run(api, "What did we do last time?")
    assert second.session_id != first.session_id
    (context,) = api.turns[0].hook_context("SessionStart")
    lines = context.splitlines()
    assert lines[0] == HEADER and lines[1] == ""
    told = list(itertools.takewhile(lambda line: line.startswith("- "), lines[2:]))
    digest = "\n".join(lines[: 2 + len(told)])
    assert math.ceil(len(digest) / 4) <= 500  # memory.maxTokens, the default budget
    # Newest first; each line is one thing session 1 did, as its hooks saw it.
    # Paths are the project's own: relative to its root.
    assert told == [
        "- Step 4: Ran `python3 src/greet.py` → exit 0",
        '- Step 3: Edited src/greet.py: print("hello, " + name) → name = "world" print("hello, " + name)',
        "- Step 2: Ran `python3 src/greet.py` → exit 1: NameError: name 'name' is not defined",
        "- Step 1: Created src/greet.py (1 lines)",
    ]
