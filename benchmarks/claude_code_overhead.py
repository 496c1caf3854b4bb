"""What Claude Code adds to every request of a `claude-code:` model call, in tokens (4 characters
a token): measured by one call through the real CLI against the scripted endpoint."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from onlooker.errors import ClaudeCodeMissing
from onlooker.llm import Message, model_from_string
from onlooker.memory.inject import estimate_tokens
from onlooker.testing import AnthropicEndpoint, find_claude

ROOT = Path(__file__).resolve().parent.parent
SYSTEM, PROMPT = "S" * 400, "P" * 400
"""Ours: what is left of the request once these are taken out is Claude Code's."""


def cli_overhead_tokens() -> tuple[int, str]:
    """Tokens the CLI adds to a call, and how that figure was found."""
    try:
        claude = find_claude(ROOT)
    except ClaudeCodeMissing:
        return 0, "not measured: no Claude Code CLI here"
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory() as home, AnthropicEndpoint(side='{"a": 1}') as endpoint:
        os.environ.update(
            HOME=home, ANTHROPIC_BASE_URL=endpoint.url, ANTHROPIC_API_KEY="sk-bench",
            ONLOOKER_CLAUDE_CLI=str(claude), CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )  # fmt: skip
        os.environ.pop("CLAUDE_CONFIG_DIR", None)
        try:
            model = model_from_string("claude-code:haiku")
            asyncio.run(model.complete([Message("system", SYSTEM), Message("user", PROMPT)]))
        finally:
            os.environ.clear()
            os.environ.update(saved)
    (request,) = [r for r in endpoint.requests if r.is_messages]
    texts = _texts(request.body.get("system")) + [
        text for message in request.body.get("messages", []) for text in _texts(message["content"])
    ]
    total = "\n".join(texts)
    return estimate_tokens(total) - estimate_tokens(SYSTEM + PROMPT), "measured, Claude Code " + (
        request.headers.get("user-agent", "").split(" ")[0]
    )


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [str(b.get("text", "")) for b in content if isinstance(b, dict)]
    return [json.dumps(content)] if content else []
