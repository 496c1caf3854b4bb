"""The README's OpenAI chat-loop example, run as written: a tool that fails is recorded as a
failure, so the loop's failures are seen (the Stall after the fourth) and not taken for successes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from openai.types.chat import ChatCompletion

from onlooker import ToolCall

README = Path(__file__).resolve().parents[2] / "README.md"
FAILED = "FAILED tests/test_parser.py::test_parse - AssertionError"


def readme_loop() -> str:
    """The README's Python block with the plain OpenAI loop (`tool_message(engine, ...)`)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)
    (block,) = [b for b in blocks if "tool_message(engine" in b]
    return str(block)


def response(calls: int) -> ChatCompletion:
    """A chat completion asking for the same failing command `calls` times."""
    tool_calls = [
        {"id": f"call_{n}", "type": "function",
         "function": {"name": "bash", "arguments": json.dumps({"command": "pytest -q"})}}
        for n in range(calls)
    ]  # fmt: skip
    return ChatCompletion.model_validate(
        {"id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-4o-mini",
         "choices": [{"index": 0, "finish_reason": "tool_calls",
                      "message": {"role": "assistant", "content": None,
                                  "tool_calls": tool_calls}}]}
    )  # fmt: skip


def run_tool(call: Any) -> str:
    """The user's tool, failing as Python code fails: it raises."""
    raise RuntimeError(f"{json.loads(call.function.arguments)['command']}: {FAILED}")


def test_the_readme_loop_records_a_failing_tool_as_a_failure() -> None:
    scope: dict[str, Any] = {"response": response(5), "messages": [], "run_tool": run_tool}
    exec(compile(readme_loop(), str(README), "exec"), scope)
    calls = scope["engine"].session[ToolCall].all()
    assert [c.call_id for c in calls] == [f"call_{n}" for n in range(5)]
    assert all(c.ok is False and FAILED in (c.error or "") for c in calls)
    messages = scope["messages"]
    assert [m["tool_call_id"] for m in messages] == [f"call_{n}" for n in range(5)]
    assert all(FAILED in m["content"] for m in messages)  # the model sees what went wrong
    assert "[Trajectory Assessment - Stall" in messages[3]["content"]  # with Error Cascade
