"""Transcript lines as markdown: Claude Code JSONL lines and onlooker journal records.

One entry per line, headed by its line number, so an agent can ask for the lines around it.
Long texts are clipped; anything unrecognised is shown as compact JSON.
"""

from __future__ import annotations

import json
from typing import Any

from ...text.clipping import head
from .content import result_text

TEXT_LIMIT = 4_000
"""Characters kept of one message text, tool input or tool result."""
OTHER_LIMIT = 300
"""Characters kept of a line that is neither a message nor a known record (attachments, modes)."""


def line_markdown(number: int, line: str) -> str:
    """The markdown of one transcript line."""
    line = line.rstrip("\n")
    if not line.strip():
        return f"### {number}\n(empty line)"
    try:
        data = json.loads(line)
    except ValueError:
        return f"### {number} · not JSON\n{_clip(line)}"
    if not isinstance(data, dict):
        return f"### {number}\n{_clip(line)}"
    if isinstance(data.get("kind"), str):
        return _journal(number, data)
    return _claude_code(number, data)


def _claude_code(number: int, data: dict[str, Any]) -> str:
    kind = str(data.get("type", "?"))
    when = f" · {data['timestamp']}" if isinstance(data.get("timestamp"), str) else ""
    side = " · sidechain" if data.get("isSidechain") else ""
    message = data.get("message")
    if kind in ("user", "assistant") and isinstance(message, dict):
        body = _content(message.get("content"))
        return f"### {number} · {kind}{when}{side}\n{body or '(no text)'}"
    if kind == "summary":
        return f"### {number} · summary\n{_clip(str(data.get('summary', '')))}"
    if kind == "system" and isinstance(data.get("content"), str):
        return f"### {number} · system{when}\n{_clip(data['content'])}"
    return f"### {number} · {kind}{when}\n{_json(data, OTHER_LIMIT)}"


def _content(content: Any) -> str:
    if isinstance(content, str):
        return _clip(content)
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(_clip(str(block.get("text", ""))))
        elif kind == "thinking" and str(block.get("thinking", "")).strip():
            parts.append(f"_thinking:_ {_clip(str(block.get('thinking', '')))}")
        elif kind == "tool_use":
            name = block.get("name", "?")
            parts.append(
                f"**tool call** `{name}` ({block.get('id', '')})\n{_json(block.get('input'))}"
            )
        elif kind == "tool_result":
            failed = " (error)" if block.get("is_error") else ""
            text = result_text(block.get("content"))
            parts.append(
                f"**tool result**{failed} ({block.get('tool_use_id', '')})\n{_fenced(text)}"
            )
        elif kind == "image":
            parts.append("[image]")
    return "\n\n".join(parts)


def _journal(number: int, data: dict[str, Any]) -> str:
    kind = data["kind"]
    when = f" · {data['at']}" if isinstance(data.get("at"), str) else ""
    text = next(
        (
            data[key]
            for key in ("text", "prompt", "summary", "content")
            if isinstance(data.get(key), str)
        ),
        None,
    )
    if kind == "tool_call":
        ok = "" if data.get("ok", True) else " (failed)"
        body = f"`{data.get('tool', '?')}`{ok}\n{_json(data.get('input'))}"
        output = data.get("output") or data.get("error")
        if output:
            body += f"\n{_fenced(output if isinstance(output, str) else json.dumps(output))}"
        return f"### {number} · tool_call{when}\n{body}"
    if text is not None:
        return f"### {number} · {kind}{when}\n{_clip(text)}"
    return f"### {number} · {kind}{when}\n{_json(data)}"


def _json(value: Any, limit: int = TEXT_LIMIT) -> str:
    return _fenced(json.dumps(value, ensure_ascii=False, default=str), "json", limit)


def _fenced(text: str, language: str = "", limit: int = TEXT_LIMIT) -> str:
    text = _clip(text, limit)
    fence = "```" if "```" not in text else "~~~~"
    return f"{fence}{language}\n{text}\n{fence}"


def _clip(text: str, limit: int = TEXT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return f"{head(text, limit)}… [{len(text) - limit} more characters]"
