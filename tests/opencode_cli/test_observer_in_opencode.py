"""The observer's tools and its `/observer` command inside the real opencode: a scripted model
calls the observer_* tools the plugin declares and reads their answers; `opencode run --command
observer ...` replaces the command's prompt with the observer command's answer."""

from __future__ import annotations

from typing import Any

import pytest
from opencode import Opencode, tool_messages, user_text

from onlooker.testing import FunctionCall, ScriptedEndpoint

pytestmark = pytest.mark.slow

OBSERVER_TOOLS = {
    "observer_status", "observer_improve", "observer_history", "observer_auto",
    "observer_score_agent", "observer_reject", "observer_rejections", "observer_unreject",
    "observer_steer",
}  # fmt: skip
GUIDANCE = """don't "guess"; run `make test` with $HOME set"""


def scoring_on(opencode: Opencode) -> None:
    config = opencode.project / ".onlooker" / "config.yaml"
    config.write_text("scoring:\n  model: openai:gpt-4o-mini\n")


def calls_then_done(*calls: FunctionCall) -> Any:
    def reply(body: dict[str, Any]) -> Any:
        if not body.get("tools"):  # the session's title, asked of the small model
            return "Observer"
        done = sum(1 for m in body["messages"] if m.get("role") == "tool")
        return calls[done] if done < len(calls) else "Done."

    return reply


def test_the_model_calls_the_observer_tools_and_reads_their_answers(opencode: Opencode) -> None:
    scoring_on(opencode)
    opencode.onlooker("install", "opencode")
    script = calls_then_done(
        FunctionCall("observer_steer", {"guidance": GUIDANCE}),
        FunctionCall("observer_status", {}),
        FunctionCall("observer_reject", {}),
    )
    with ScriptedEndpoint(reply=script) as endpoint:
        opencode.prepare(endpoint)
        opencode.run("how am I doing?")
    agent_requests = [r for r in endpoint.requests if r.get("tools")]
    offered = {t["function"]["name"] for t in agent_requests[0]["tools"]}
    assert OBSERVER_TOOLS | {"observations"} <= offered
    steer_schema = next(
        t["function"]["parameters"] for t in agent_requests[0]["tools"]
        if t["function"]["name"] == "observer_steer"
    )  # fmt: skip
    assert steer_schema["properties"]["guidance"]["maxLength"] == 2000
    steered, status, refused = tool_messages(agent_requests[-1])
    assert steered == f"Guidance: {GUIDANCE}"
    assert "Observer: 0 sessions" in status
    assert "give index" in refused  # the MCP tool's own refusal, naming the argument
    shown = opencode.onlooker("observer", "steer").stdout  # the same store, the same project
    assert shown == f"Guidance: {GUIDANCE}\n"


def test_the_observer_command_answers_in_place_of_its_prompt(opencode: Opencode) -> None:
    scoring_on(opencode)
    opencode.onlooker("install", "opencode")

    def echo(body: dict[str, Any]) -> Any:
        return "Observer" if not body.get("tools") else f"Shown: {user_text(body)[-400:]}"

    with ScriptedEndpoint(reply=echo) as endpoint:
        opencode.prepare(endpoint)
        opencode.run(GUIDANCE, "--command", "observer", "steer")  # quoted by `opencode run`
        ran = opencode.run("status", "--command", "observer")
        opencode.run("accept 7", "--command", "observer")
    prompts = [user_text(r) for r in endpoint.requests if r.get("tools")]
    assert len(prompts) == 3
    assert prompts[0].endswith(f"Guidance: {GUIDANCE}")
    assert "Show it to the user as it is" in prompts[1]
    assert "Observer: 0 sessions" in prompts[1] and "$ARGUMENTS" not in prompts[1]
    assert "Observer: 0 sessions" in ran.stdout  # what the model showed, opencode printed
    assert "onlooker: no pending improvements" in prompts[2]
    assert opencode.onlooker("observer", "steer").stdout == f"Guidance: {GUIDANCE}\n"
