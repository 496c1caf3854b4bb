"""Conversation reviewers in the real opencode read what the assistant wrote: its text before a
tool call and its last answer, its reasoning only when the reviewer takes reasoning, in the order
it was said, and secrets in it redacted before the reviewer's model is sent anything; nothing of
it is kept without a conversation reviewer; a subagent's words (opencode's task tool) go to the
subagent's own session."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from opencode import Opencode

from onlooker.store.home import journal_path, project_for
from onlooker.testing import FunctionCall, ScriptedEndpoint

pytestmark = pytest.mark.slow

CONFIG = """\
behaviors:
  - module: hooks-observations
    config:
      hooks:
        - trigger: response:complete
      execution:
        mode: parallel
        timeout_per_observer: 20
      observers:
        - name: Logic Checker
          role: Checks the agent's reasoning
          focus: Conclusions that do not follow
          model: "{logic}"
          timeout: 20
          watch:
            - type: conversation
              include_tool_calls: true
              include_reasoning: true
        - name: Plain Reader
          role: Reads what the agent said
          focus: Claims without evidence
          model: "{plain}"
          timeout: 20
          watch:
            - type: conversation
              include_reasoning: false
"""

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
THOUGHT = "Weighing it: the lockfile drift explains the flaky import, not the network."
SAID = f"The flaky test fails because the fixture reuses port 8731; the deploy token is {TOKEN}."
LAST = "Port 8731 is no longer reused by the fixture, so the flaky test passes now."
CHECK = FunctionCall(
    "bash", {"command": "echo checked", "description": "Check"}, text=SAID, reasoning=THOUGHT
)


def reply(body: dict[str, Any]) -> Any:
    if not body.get("tools"):  # the session's title, asked of the small model
        return "Flaky test"
    done = sum(1 for m in body["messages"] if m.get("role") == "tool")
    return CHECK if done == 0 else LAST


def test_conversation_reviewers_read_the_assistants_words(opencode: Opencode) -> None:
    opencode.onlooker("install", "opencode")
    with ScriptedEndpoint() as reviewer_model, ScriptedEndpoint(reply=reply) as endpoint:
        (opencode.project / ".onlooker" / "config.yaml").write_text(
            CONFIG.format(logic=reviewer_model.spec("logic"), plain=reviewer_model.spec("plain"))
        )
        opencode.prepare(endpoint)
        opencode.run("Why is the test flaky?")
        _wait(lambda: len(reviewer_model.requests) >= 2, "both reviewers")

    sent = {body["model"]: _text(body) for body in reviewer_model.requests}
    assert set(sent) == {"logic", "plain"}, sent.keys()
    for text in sent.values():
        assert "The flaky test fails because the fixture reuses port 8731" in text
        assert LAST in text
        assert "echo checked" in text
        assert TOKEN not in text
        assert "[REDACTED:github_token]" in text
    assert THOUGHT in sent["logic"]
    assert THOUGHT not in sent["plain"]
    # the words come in the order they were said: before the call they led to
    logic = sent["logic"]
    assert logic.index("port 8731; the deploy") < logic.index("echo checked") < logic.index(LAST)
    # each part was recorded once, and what was recorded holds no secret either
    records = _journal(opencode)
    said = [r.get("text") or r.get("reasoning") for r in records
            if r["kind"] == "assistant_message"]  # fmt: skip
    assert said == [THOUGHT, SAID.replace(TOKEN, "[REDACTED:github_token]"), LAST]
    assert all(TOKEN not in json.dumps(r) for r in records)


def test_without_a_conversation_reviewer_nothing_the_assistant_wrote_is_kept(
    opencode: Opencode,
) -> None:
    opencode.onlooker("install", "opencode")
    with ScriptedEndpoint(reply=reply) as endpoint:
        opencode.prepare(endpoint)
        opencode.run("Why is the test flaky?")
    records = _journal(opencode)
    assert [r["tool"] for r in records if r["kind"] == "tool_call"] == ["bash"]
    assert not [r for r in records if r["kind"] == "assistant_message"]
    started = [(r.get("host"), r["source"]) for r in records if r["kind"] == "session_started"]
    assert started == [("opencode", "startup")]  # one start, the viewer's host filter reads it


BEFORE = "The settings folder is the likeliest place; listing it first."
FOUND = "The config is settings/app.toml."


def delegating(body: dict[str, Any]) -> Any:
    """The main session delegates to opencode's `general` subagent, which speaks, lists, answers."""
    if not body.get("tools"):
        return "Config"
    messages = body["messages"]
    done = sum(1 for m in messages if m.get("role") == "tool")
    first = json.dumps([m.get("content") for m in messages if m.get("role") == "user"][:1])
    if "Say where the config is." in first:  # the subagent's session
        listing = FunctionCall(
            "bash", {"command": "ls settings", "description": "List"}, text=BEFORE
        )
        return listing if done == 0 else FOUND
    delegate = {"description": "Find the config", "prompt": "Say where the config is.",
                "subagent_type": "general"}  # fmt: skip
    return FunctionCall("task", delegate) if done == 0 else "Done."


def test_a_subagents_words_go_to_its_own_session(opencode: Opencode) -> None:
    opencode.onlooker("install", "opencode")
    (opencode.project / "settings").mkdir()
    (opencode.project / "settings" / "app.toml").write_text("debug = true\n")
    with ScriptedEndpoint() as reviewer_model, ScriptedEndpoint(reply=delegating) as endpoint:
        (opencode.project / ".onlooker" / "config.yaml").write_text(
            CONFIG.format(logic=reviewer_model.spec("logic"), plain=reviewer_model.spec("plain"))
        )
        opencode.prepare(endpoint)
        opencode.run("Where is the config?")
    journals = _journals(opencode)
    (child,) = [records for records in journals if _parent(records)]
    (main,) = [records for records in journals if records is not child]
    assert _parent(child) == main[-1]["session_id"]
    # each session starts once, as created: the subagent's first prompt may reach the plugin
    # before opencode's event of its creation does
    for records in (main, child):
        starts = [r for r in records if r["kind"] == "session_started"]
        assert [r["source"] for r in starts] == ["startup"], starts
        assert starts[0].get("parent_session_id", "") == (
            _parent(child) if records is child else ""
        )
    said = [(r["kind"], r.get("text") or r.get("tool")) for r in child
            if r["kind"] in ("assistant_message", "tool_call")]  # fmt: skip
    assert said == [
        ("assistant_message", BEFORE),
        ("tool_call", "bash"),
        ("assistant_message", FOUND),
    ]
    spoken = [r["text"] for r in main if r["kind"] == "assistant_message"]
    assert spoken == ["Done."]


def _parent(records: list[dict[str, Any]]) -> str:
    return next((r["parent_session_id"] for r in records if r.get("parent_session_id")), "")


def _journals(opencode: Opencode) -> list[list[dict[str, Any]]]:
    folder = journal_path(opencode.onlooker_home, project_for(opencode.project), "x").parent
    paths = [p for p in folder.glob("*.jsonl") if not p.name.startswith("_")]
    return [
        [json.loads(line) for line in p.read_text().splitlines() if line.strip()] for p in paths
    ]


def _journal(opencode: Opencode) -> list[dict[str, Any]]:
    (records,) = _journals(opencode)
    return records


def _text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in body["messages"])


def _wait(condition: Any, what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)
