"""Public test doubles: a scripted Model that stands in for paid remote APIs in tests.

`ScriptedModel` answers from a list of replies (text, JSON-able data, an exception, or a function
of the request), records every request, and can wait a fixed latency, so reviewer and memory code
is tested without a network. For a real local model, see `onlooker.llm` (`local:` and
`openai-compatible:` providers).

`HeadlessChromium` drives the system's Chromium over the DevTools protocol, to check a page
(the report) as a browser shows it.

`AnthropicEndpoint` is a scripted Anthropic Messages API on 127.0.0.1 and `ClaudeCode` runs the
real Claude Code CLI headless against it, so observers are tested inside Claude Code, offline.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidOutput, ModelTimeout
from ..llm.model import Completion, Message, Usage
from .anthropic_endpoint import AnthropicEndpoint, Blocks, Failure, Text, Thinking, ToolUse
from .browser import HeadlessChromium, PageLoad, find_chromium
from .claude_cli import ClaudeCode, ClaudeCodeMissing, HeadlessRun, find_claude
from .messages_request import MessagesRequest
from .openai_endpoint import FunctionCall, ScriptedEndpoint

Reply = str | dict[str, Any] | list[Any] | BaseException | Callable[["ScriptedRequest"], Any]
"""One scripted answer: text, data (returned as JSON), an exception to raise, or a function."""

__all__ = [
    "AnthropicEndpoint",
    "Blocks",
    "ClaudeCode",
    "ClaudeCodeMissing",
    "Failure",
    "FunctionCall",
    "HeadlessChromium",
    "HeadlessRun",
    "MessagesRequest",
    "PageLoad",
    "Reply",
    "ScriptedEndpoint",
    "ScriptedModel",
    "ScriptedRequest",
    "Text",
    "Thinking",
    "ToolUse",
    "find_chromium",
    "find_claude",
]


@dataclass(frozen=True, slots=True)
class ScriptedRequest:
    """One call a ScriptedModel received."""

    messages: tuple[Message, ...]
    schema: dict[str, Any] | None
    timeout: float
    max_tokens: int

    @property
    def prompt(self) -> str:
        """Every message's content, joined: handy for `assert "x" in request.prompt`."""
        return "\n\n".join(message.content for message in self.messages)


@dataclass
class ScriptedModel:
    """A Model that answers from a script, in order; the last reply repeats when it runs out.

    `latency` seconds pass before each answer (asyncio.sleep), and a call whose `timeout` is
    shorter raises ModelTimeout, as a real provider would. Token usage is counted as words.
    """

    replies: Iterable[Reply] = ("",)
    latency: float = 0.0
    model_name: str = "scripted:test"
    cost_per_call: float | None = None
    requests: list[ScriptedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._script: list[Reply] = list(self.replies)
        if not self._script:
            raise ValueError("ScriptedModel needs at least one reply")
        self._next = 0

    @property
    def name(self) -> str:
        return self.model_name

    @property
    def calls(self) -> int:
        return len(self.requests)

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None = None,
        timeout: float = 30.0,
        max_tokens: int = 1024,
    ) -> Completion:
        request = ScriptedRequest(tuple(messages), schema, timeout, max_tokens)
        self.requests.append(request)
        reply = self._script[min(self._next, len(self._script) - 1)]
        self._next += 1
        if self.latency:
            if timeout < self.latency:
                await asyncio.sleep(timeout)
                raise ModelTimeout(f"{self.model_name} did not answer within {timeout:g}s")
            await asyncio.sleep(self.latency)
        if callable(reply) and not isinstance(reply, BaseException):
            reply = reply(request)
        if isinstance(reply, BaseException):
            raise reply
        text = reply if isinstance(reply, str) else json.dumps(reply)
        data: Any = None
        if schema is not None:
            try:
                data = json.loads(text)
            except ValueError:
                raise InvalidOutput(
                    f"{self.model_name} answered text that is not JSON", text
                ) from None
        usage = Usage(
            input_tokens=sum(len(m.content.split()) for m in messages),
            output_tokens=len(text.split()),
            cost_usd=self.cost_per_call,
        )
        return Completion(text=text, data=data, usage=usage, model=self.model_name)
