"""The hook inputs a piece of text arrives in (Claude Code's own field names): the families
corpus (tests/fixtures/redaction/families.py) names one carrier per case."""

from __future__ import annotations

import json
from typing import Any

BASE = {"session_id": "s-corpus", "transcript_path": "/tmp/t.jsonl", "cwd": "/work/app"}


def _tool(name: str, tool_input: dict[str, Any], response: Any) -> dict[str, Any]:
    return {**BASE, "hook_event_name": "PostToolUse", "tool_name": name,
            "tool_input": tool_input, "tool_response": response, "tool_use_id": "toolu_1"}  # fmt: skip


def hook_input(carrier: str, text: str, command: str = "") -> dict[str, Any]:
    """The hook input carrying `text` as `carrier` (for a Bash output, `command` printed it)."""
    ran = command or "./scripts/run.sh"
    if carrier == "bash_stdout":
        return _tool("Bash", {"command": ran}, {"stdout": text, "stderr": "", "interrupted": False})
    if carrier == "bash_stderr":
        return _tool("Bash", {"command": ran}, {"stdout": "", "stderr": text, "interrupted": False})
    if carrier == "bash_command":
        return _tool("Bash", {"command": text, "description": "run it"},
                     {"stdout": "ok", "stderr": "", "interrupted": False})  # fmt: skip
    if carrier == "read":
        file = {"filePath": "/work/app/conf", "content": text, "numLines": text.count("\n") + 1}
        return _tool("Read", {"file_path": "/work/app/conf"}, {"type": "text", "file": file})
    if carrier == "grep":
        return _tool("Grep", {"pattern": "KEY|key|token", "output_mode": "content"},
                     {"mode": "content", "content": text, "numLines": text.count("\n") + 1})  # fmt: skip
    if carrier == "webfetch":
        return _tool("WebFetch", {"url": "https://docs.example.com/page", "prompt": "summarise"},
                     {"result": text, "code": 200, "codeText": "OK", "bytes": len(text)})  # fmt: skip
    if carrier == "edit":
        return _tool("Edit", {"file_path": "/work/app/main.py", "old_string": "# here",
                              "new_string": text}, {"filePath": "/work/app/main.py"})  # fmt: skip
    if carrier == "mcp_input":
        return _tool("mcp__acme__call", json.loads(text), [{"type": "text", "text": "done"}])
    if carrier == "prompt":
        return {**BASE, "hook_event_name": "UserPromptSubmit", "prompt": text}
    if carrier == "stop":
        return {**BASE, "hook_event_name": "Stop", "stop_hook_active": False,
                "last_assistant_message": text}  # fmt: skip
    if carrier == "subagent_stop":
        return {**BASE, "hook_event_name": "SubagentStop", "agent_id": "a1",
                "agent_type": "general-purpose", "last_assistant_message": text}  # fmt: skip
    raise ValueError(f"unknown carrier {carrier!r}")
