"""Claude Code message content as text: prompts without harness noise, tool results as text."""

from __future__ import annotations

import re
from typing import Any

_NOISE_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
    "Caveat: The messages below were generated",
    "[Request interrupted by user",
)
#: Claude Code's own session commands: they manage the session and state no task.
HOUSEKEEPING_COMMANDS = frozenset(
    {
        "/add-dir", "/agents", "/clear", "/compact", "/config", "/context", "/copy", "/cost",
        "/doctor", "/exit", "/export", "/help", "/hooks", "/ide", "/login", "/logout", "/mcp",
        "/memory", "/model", "/permissions", "/quit", "/resume", "/rewind", "/status",
        "/statusline", "/usage", "/vim",
    }
)  # fmt: skip
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.DOTALL)


def prompt_text(text: str) -> str:
    """A prompt as the user meant it, or '' for harness noise."""
    if "<system-reminder>" in text:
        text = _REMINDER.sub("", text)
    text = text.strip()
    if not text or text.startswith(_NOISE_PREFIXES):
        return ""
    if "<command-name>" in text:
        name = _COMMAND_NAME.search(text)
        args = _COMMAND_ARGS.search(text)
        if name:
            command = name.group(1).strip()
            command = command if command.startswith("/") else f"/{command}"
            if command in HOUSEKEEPING_COMMANDS:
                return ""
            return f"{command} {args.group(1).strip()}".strip() if args else command
    if text.startswith("<bash-input>"):
        found = _BASH_INPUT.search(text)
        return f"! {found.group(1).strip()}" if found else ""
    return text


def result_text(content: Any) -> str:
    """The text of a tool result's content: a string, or a list of text/image/reference blocks."""
    if type(content) is str:
        return content
    if type(content) is not list:
        return ""
    parts: list[str] = []
    for block in content:
        if type(block) is not dict:
            continue
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if type(text) is str:
                parts.append(text)
        elif kind == "image":
            parts.append("[image]")
        elif kind == "tool_reference":
            parts.append(f"[tool {block.get('tool_name', '')}]")
    return "\n".join(parts)
