"""One request an `AnthropicEndpoint` received, with the views a test asserts on: the tools offered,
the system prompt, the text of every message and the tool results the model was shown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["MessagesRequest", "block_text"]

#: What Claude Code puts in a subagent's system prompt.
SUBAGENT_MARK = "cc_is_subagent=true"
#: What Claude Code's request to compact the conversation asks for.
COMPACTION_MARK = "summary of the conversation so far"
#: How Claude Code shows a hook's `additionalContext` to the model.
_HOOK_CONTEXT = re.compile(r"(?m)^(\w+)(?::[^\s:]+)? hook additional context: ")


@dataclass(frozen=True, slots=True)
class MessagesRequest:
    """A recorded HTTP request: its path, its JSON body and its headers (names in lower case)."""

    method: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    received: float = 0.0
    """When it arrived, on `time.monotonic()`'s clock."""

    @property
    def is_messages(self) -> bool:
        """A `POST /v1/messages` (not count_tokens or anything else)."""
        return self.method == "POST" and self.path.rstrip("/").endswith("/v1/messages")

    @property
    def is_turn(self) -> bool:
        """The agent's turn: a message request that offers tools."""
        return bool(self.body.get("tools"))

    @property
    def is_subagent(self) -> bool:
        """Sent for one of Claude Code's subagents (its system prompt says so)."""
        return SUBAGENT_MARK in self.system

    @property
    def is_compaction(self) -> bool:
        """A request to summarize the conversation so far (Claude Code compacting its context)."""
        last = self.last_user_text
        return COMPACTION_MARK in last and "<summary>" in last

    @property
    def model(self) -> str:
        return str(self.body.get("model") or "claude-scripted")

    @property
    def size(self) -> int:
        """Characters of JSON sent (the base of the default token count)."""
        return len(json.dumps(self.body))

    @property
    def tools(self) -> list[str]:
        """The names of the tools offered."""
        return [str(t.get("name", "")) for t in self.body.get("tools", []) if isinstance(t, dict)]

    @property
    def system(self) -> str:
        """The system prompt's text."""
        return block_text(self.body.get("system"))

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages = self.body.get("messages", [])
        return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []

    def texts(self, role: str | None = None) -> list[str]:
        """The text of each message (of `role` when given), tool results included."""
        return [
            block_text(m.get("content"))
            for m in self.messages
            if role is None or m.get("role") == role
        ]

    @property
    def text(self) -> str:
        """Every message's text, joined: handy for `assert "x" in request.text`."""
        return "\n\n".join(self.texts())

    @property
    def last_user_text(self) -> str:
        """The text of the last user message (where hook context and tool results arrive)."""
        users = self.texts("user")
        return users[-1] if users else ""

    def hook_context(self, event: str | None = None) -> list[str]:
        """The `additionalContext` of the hooks (of `event` when given) in the messages, oldest
        first: Claude Code shows each as `EVENT[:TOOL] hook additional context: TEXT`."""
        found = []
        for text in self.texts():
            marks = list(_HOOK_CONTEXT.finditer(text))
            ends = [mark.start() for mark in marks[1:]] + [len(text)] * bool(marks)
            for mark, end in zip(marks, ends, strict=True):
                if event is None or mark.group(1) == event:
                    found.append(text[mark.end() : end].rstrip())
        return found

    def tool_results(self) -> Iterator[tuple[str, str]]:
        """(tool_use_id, text) of every tool_result block in the messages, oldest first."""
        for message in self.messages:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    yield str(block.get("tool_use_id", "")), block_text(block.get("content"))

    def tool_uses(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(tool name, input) of every tool_use block the assistant sent, oldest first."""
        for message in self.messages:
            content = message.get("content")
            if message.get("role") != "assistant" or not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    tool_input = block.get("input")
                    yield str(block.get("name")), tool_input if isinstance(tool_input, dict) else {}


def block_text(content: Any) -> str:
    """The text of a message's or block's content, whether a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_result":
                parts.append(block_text(block.get("content")))
            elif isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "\n".join(parts)
    return ""
