"""The scripted Anthropic Messages endpoint, read by the real `anthropic` SDK: streamed and whole
answers, turns from the script, side requests apart, count_tokens, failures, every request kept."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

from onlooker.testing import AnthropicEndpoint, Blocks, Failure, MessagesRequest, Text, ToolUse

TOOLS: list[Any] = [{"name": "Bash", "description": "Run", "input_schema": {"type": "object"}}]


def client(api: AnthropicEndpoint) -> anthropic.Anthropic:
    """A client to close when done (`with`): one left to the garbage collector keeps its pooled
    connection open, and its socket is reported unclosed in whichever test collects it."""
    return anthropic.Anthropic(base_url=api.url, api_key="sk-test", max_retries=0)


def ask(api: AnthropicEndpoint, text: str, *, tools: bool = True, **kw: Any) -> Any:
    with client(api) as sdk:
        return sdk.messages.create(
            model="claude-test",
            max_tokens=100,
            messages=[{"role": "user", "content": text}],
            **({"tools": TOOLS} if tools else {}),
            **kw,
        )


def test_a_streamed_turn_gives_text_and_tool_calls_with_their_input() -> None:
    script = [Blocks((Text("Looking."), ToolUse("Bash", {"command": "ls -la"})))]
    with AnthropicEndpoint(script) as api, client(api) as sdk:
        stream = sdk.messages.stream(
            model="claude-test",
            max_tokens=100,
            tools=TOOLS,
            messages=[{"role": "user", "content": "Look around"}],
        )
        with stream as events:
            kinds = [event.type for event in events]
            message = events.get_final_message()
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert {"text", "input_json"} <= set(kinds)  # text_delta and input_json_delta, as the SDK sees
    assert message.stop_reason == "tool_use"
    text, call = message.content
    assert text.type == "text" and text.text == "Looking."
    assert call.type == "tool_use" and call.name == "Bash" and call.input == {"command": "ls -la"}


def test_turns_follow_the_script_then_the_final_text_and_side_requests_stay_apart() -> None:
    with AnthropicEndpoint([ToolUse("Bash", {"command": "true"})], final="All done.") as api:
        title = ask(api, "Name this session", tools=False)
        first = ask(api, "Do it")
        second = ask(api, "And then?")
    assert title.content[0].text == "Scripted session"
    assert first.content[0].input == {"command": "true"} and first.stop_reason == "tool_use"
    assert second.content[0].text == "All done." and second.stop_reason == "end_turn"
    assert [r.last_user_text for r in api.turns] == ["Do it", "And then?"]
    assert [r.last_user_text for r in api.side_requests] == ["Name this session"]
    assert api.script_left == 0


def test_a_reply_can_be_a_function_of_the_request_and_subagents_have_their_own_script() -> None:
    def echo(request: MessagesRequest) -> Text:
        return Text(f"you said {request.last_user_text}")

    with AnthropicEndpoint([echo], subagent_script=[Text("sub")]) as api:
        main = ask(api, "hello")
        sub = ask(api, "hi", system="x-anthropic-billing-header: cc_is_subagent=true; You are…")
    assert main.content[0].text == "you said hello" and sub.content[0].text == "sub"
    assert len(api.turns) == 1 and len(api.subagent_turns) == 1


def test_count_tokens_other_posts_and_failures() -> None:
    with AnthropicEndpoint([Failure(529, "overloaded_error", "busy")], input_tokens=42) as api:
        with client(api) as sdk:
            counted = sdk.messages.count_tokens(
                model="claude-test", messages=[{"role": "user", "content": "hi"}]
            )
        with pytest.raises(anthropic.APIStatusError) as failed:
            ask(api, "hi")
    assert counted.input_tokens == 42
    assert failed.value.status_code == 529 and "busy" in str(failed.value)
    assert [r.path for r in api.requests] == ["/v1/messages/count_tokens", "/v1/messages"]
    assert api.requests[1].received >= api.requests[0].received > 0


def test_hook_context_is_read_as_claude_code_shows_it() -> None:
    body = {
        "messages": [
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}],
            },
            {
                "role": "system",
                "content": "PostToolUseFailure:Bash hook additional context: [Stall]\n\nsaid",
            },
            {"role": "user", "content": "next\n\nUserPromptSubmit hook additional context: open"},
        ]
    }
    request = MessagesRequest("POST", "/v1/messages", body, {})
    assert request.hook_context() == ["[Stall]\n\nsaid", "open"]
    assert request.hook_context("UserPromptSubmit") == ["open"]
    assert list(request.tool_results()) == [("t", "x")]
