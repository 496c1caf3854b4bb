"""Plain tool loops: OpenAI chat tool messages and Anthropic tool_result blocks carry the feedback."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from anthropic.types import ToolUseBlock
from openai.types.chat import ChatCompletionMessageFunctionToolCall
from openai.types.chat.chat_completion_message_function_tool_call import Function

from onlooker import Engine, FixedClock, Session, ToolCall
from onlooker.hosts.sdk._tool_loop import tool_arguments
from onlooker.hosts.sdk.anthropic_messages import atool_result_block, tool_result_block
from onlooker.hosts.sdk.openai_chat import atool_message, tool_message
from onlooker.observers import builtin_observers

STALL = "[Trajectory Assessment - Stall"
FAILED = "FAILED tests/test_parser.py::test_parse - AssertionError\n1 failed in 0.12s"


def engine(name: str) -> Engine:
    return Engine(builtin_observers(), session=Session(name), clock=FixedClock())


def openai_call(n: int) -> ChatCompletionMessageFunctionToolCall:
    return ChatCompletionMessageFunctionToolCall(
        id=f"call_{n}",
        type="function",
        function=Function(name="bash", arguments=json.dumps({"command": "pytest -q"})),
    )


def anthropic_use(n: int) -> ToolUseBlock:
    return ToolUseBlock(
        id=f"toolu_{n}", type="tool_use", name="Bash", input={"command": "pytest -q"}
    )


def test_openai_chat_loop_appends_the_stall_warning_to_the_tool_message() -> None:
    loop = engine("chat")
    messages = [tool_message(loop, openai_call(n), FAILED, is_error=True) for n in range(8)]
    assert messages[0] == {"role": "tool", "tool_call_id": "call_0", "content": FAILED}
    warned = [m for m in messages if STALL in m["content"]]
    assert warned
    assert warned[0]["content"].startswith(FAILED + "\n\n")
    calls = loop.session[ToolCall].all()
    assert [c.call_id for c in calls] == [f"call_{n}" for n in range(8)]
    assert calls[0].input == {"command": "pytest -q"} and calls[0].ok is False


def test_openai_chat_takes_the_dict_form_and_async_loops() -> None:
    loop = engine("chat-dict")
    call = openai_call(1).model_dump()
    message = asyncio.run(atool_message(loop, call, "ok"))
    assert message == {"role": "tool", "tool_call_id": "call_1", "content": "ok"}
    assert loop.session[ToolCall].latest().ok  # type: ignore[union-attr]


def test_anthropic_loop_adds_a_text_block_after_the_tool_content() -> None:
    loop = engine("messages")
    blocks = [tool_result_block(loop, anthropic_use(n), FAILED, is_error=True) for n in range(8)]
    assert blocks[0] == {
        "type": "tool_result",
        "tool_use_id": "toolu_0",
        "content": FAILED,
        "is_error": True,
    }
    warned = [b for b in blocks if isinstance(b["content"], list)]
    assert warned
    first = warned[0]["content"]
    assert first[0] == {"type": "text", "text": FAILED}
    assert first[-1]["type"] == "text" and STALL in first[-1]["text"]


def test_anthropic_block_content_and_empty_text_are_kept_valid() -> None:
    loop = engine("messages-blocks")
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}}
    use = anthropic_use(0).model_dump()
    blocks = []
    for n in range(8):
        use["id"] = f"toolu_{n}"
        blocks.append(
            asyncio.run(atool_result_block(loop, use, [image, {"type": "text", "text": ""}]))
        )
    assert blocks[0]["content"] == [image, {"type": "text", "text": ""}]  # no feedback: as given
    content: Any = next(b["content"] for b in blocks if STALL in str(b["content"]))
    assert content[0] == image
    assert {"type": "text", "text": ""} not in content
    assert STALL in content[-1]["text"]


def test_bad_tool_calls_name_the_field() -> None:
    loop = engine("bad")
    with pytest.raises(ValueError, match="string id and name"):
        tool_message(loop, {"id": 3, "function": {"name": "bash"}}, "")
    with pytest.raises(ValueError, match="input must be an object"):
        tool_result_block(loop, {"id": "t", "name": "Bash", "input": "ls"}, "")


def test_arguments_that_are_not_a_json_object_are_kept() -> None:
    assert tool_arguments('{"a": 1}') == {"a": 1}
    assert tool_arguments("not json") == {"arguments": "not json"}
    assert tool_arguments("[1, 2]") == {"arguments": [1, 2]}
    assert tool_arguments("  ") == {} and tool_arguments(None) == {}
