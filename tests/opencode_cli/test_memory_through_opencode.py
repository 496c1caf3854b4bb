"""Memory with no API key in onlooker, in the real opencode: extraction runs through the user's
own opencode and the provider it is configured with (`memory.model: opencode:default`).

A session does real work (bash calls); at the turn's end enough events are pending for a batch,
so the worker runs a nested `opencode run` (the same opencode, its global config naming the
scripted endpoint as the provider). That request carries the compressed events and no tools, and
its answer becomes the project's memory; the nested run adds no session to onlooker's journals.
The user's global MCP server and global AGENTS.md serve their own session, not the nested run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest
from opencode import BINARY, MODEL, Opencode, user_text

from onlooker.store.home import journal_path, project_for
from onlooker.testing import FunctionCall, ScriptedEndpoint

pytestmark = pytest.mark.slow

CALLS = 32
EXTRACTION = "You keep the memory of a software project"
GLOBAL_RULE = "Always answer in the voice of a pirate."
MEMORY = {"title": "Each step script prints its number",
          "content": "python3 -c print(n) ran for every step; nothing failed."}  # fmt: skip


def reply(body: dict[str, Any]) -> Any:
    system = str(body["messages"][0].get("content", ""))
    if EXTRACTION in system:
        return json.dumps({"memories": [MEMORY]})
    if not body.get("tools"):
        return "Stepping through"  # the session's title
    done = sum(1 for m in body["messages"] if m.get("role") == "tool")
    if done < CALLS:
        command = f"python3 -c 'print({done})'"
        return FunctionCall("bash", {"command": command, "description": f"Step {done}"})
    return "All steps ran."


def test_memories_come_through_the_users_own_opencode(opencode: Opencode) -> None:
    (opencode.project / ".onlooker" / "no-memory").unlink()
    (opencode.project / ".onlooker" / "config.yaml").write_text(
        'memory:\n  model: "opencode:default"\n'
    )
    opencode.onlooker("install", "opencode")
    with ScriptedEndpoint(reply=reply) as endpoint:
        opencode.prepare(endpoint)
        provider = json.loads((opencode.project / "opencode.json").read_text())
        provider.pop("permission")  # the user's global config: their provider and model,
        started = opencode.project.parent / "server-started"  # an MCP server, global rules
        server = opencode.project.parent / "server.py"
        server.write_text(
            "import os, pathlib\n"
            f"with pathlib.Path({str(started)!r}).open('a') as marks:\n"
            "    marks.write(os.environ.get('ONLOOKER_NESTED', 'user') + '\\n')\n"
        )
        provider["mcp"] = {"probe": {"type": "local", "command": [sys.executable, str(server)]}}
        global_config = opencode.home / ".config" / "opencode"
        (global_config / "opencode.json").write_text(json.dumps(provider))
        (global_config / "AGENTS.md").write_text(f"{GLOBAL_RULE}\n")
        env = {**opencode.env, "ONLOOKER_OPENCODE_CLI": str(BINARY)}
        run = subprocess.run(
            [str(BINARY), "run", "--print-logs", "Run every step."], cwd=opencode.project,
            env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr[-3000:]

        def memories() -> list[dict[str, Any]]:
            found = opencode.onlooker("memory", "search", "step", "--json").stdout
            return list(json.loads(found)["memories"])

        deadline = time.monotonic() + 300
        while not memories():
            assert time.monotonic() < deadline, "no memory was extracted through opencode"
            time.sleep(1)
        asked = [r for r in endpoint.requests if EXTRACTION in str(r["messages"][0]["content"])]
        others = [r for r in endpoint.requests if r not in asked]
    (request,) = asked
    assert GLOBAL_RULE not in json.dumps(request)  # the user's global rules stay in their session
    assert any(GLOBAL_RULE in json.dumps(r) for r in others)
    assert started.read_text().split() == ["user"]  # their MCP server started for them only
    assert not request.get("tools") and MODEL.split("/")[1] == request["model"]
    sent = user_text(request)  # the compressed events, one a line; no file, no output
    lines = sent.splitlines()
    assert "1. Ran `python3 -c 'print(0)'` → exit 0" in lines  # a batch of 20, at turn's end
    assert "20. Ran `python3 -c 'print(19)'` → exit 0" in lines and "print(20)" not in sent
    (memory,) = memories()
    assert memory["title"] == MEMORY["title"]
    folder = journal_path(opencode.onlooker_home, project_for(opencode.project), "x").parent
    assert len(list(folder.glob("ses_*.jsonl"))) == 1  # the nested run was not observed
