"""The user's own Claude Code as a model (`claude-code:haiku`, `claude-code:sonnet`, ...).

One call is one non-interactive run, `claude -p --output-format json`, with the prompt on stdin.
It authenticates exactly as the user's CLI does (its login, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
Bedrock or Vertex settings): onlooker passes its environment through and never reads, copies or
stores a credential. The nested run is hardened (specs/llm.md):

- no tools (`--tools ""`), no MCP servers (`--strict-mcp-config` with an empty `--mcp-config`),
  no user, project or local settings (`--setting-sources ""`, so no hook of anyone's runs), one
  turn (`--max-turns 1`), the system prompt replaced by the caller's (`--system-prompt`);
- it leaves no session in the user's history (`--no-session-persistence`) and runs in a fresh
  empty folder, so no project's CLAUDE.md is read into it;
- `ONLOOKER_NESTED=1` is set for it: onlooker's hook does nothing when it sees it (a second guard
  against recursion, should settings be loaded after all).

The executable is `$ONLOOKER_CLAUDE_CLI`, else `claude` on PATH. Tokens and the cost the CLI
reports (`usage`, `total_cost_usd`) come back in `Completion.usage`.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelUnavailable, ProviderSetupError
from ._nested import NESTED_VARIABLE, run_nested
from .call import ModelBase, Request, read_json, with_json_instruction
from .model import Completion, Usage

__all__ = ["CLI_VARIABLE", "NESTED_VARIABLE", "ClaudeCodeModel", "claude_command", "find_cli"]

CLI_VARIABLE = "ONLOOKER_CLAUDE_CLI"
"""Names the Claude Code executable; else `claude` on PATH."""
EFFORT = "low"
"""Thinking effort of a nested run: summaries need little, and every thinking token is paid."""


def find_cli(spec: str) -> Path:
    """The user's Claude Code: `$ONLOOKER_CLAUDE_CLI`, else `claude` on PATH."""
    chosen = os.environ.get(CLI_VARIABLE, "").strip()
    if chosen:
        path = Path(chosen).expanduser()
        if not os.access(path, os.X_OK):
            raise ProviderSetupError(f"{spec}: ${CLI_VARIABLE} is {chosen}, not an executable")
        return path
    found = shutil.which("claude")
    if found is None:
        raise ProviderSetupError(
            f"{spec} runs your Claude Code, and there is no `claude` on PATH: install Claude Code "
            f"or set {CLI_VARIABLE} to its executable"
        )
    return Path(found)


def claude_command(executable: Path, model: str, system: str) -> list[str]:
    """The hardened `claude -p` command of one call (the prompt goes on stdin)."""
    return [
        str(executable), "-p", "--output-format", "json", "--model", model,
        "--tools", "", "--strict-mcp-config", "--mcp-config", '{"mcpServers":{}}',
        "--setting-sources", "", "--no-session-persistence", "--max-turns", "1",
        "--disable-slash-commands", "--effort", EFFORT, "--system-prompt", system,
    ]  # fmt: skip


@dataclass
class ClaudeCodeModel(ModelBase):
    """A model answered through the user's Claude Code CLI."""

    name: str
    """The model string, e.g. `claude-code:haiku`."""
    model: str
    """What `--model` gets: an alias (`haiku`, `sonnet`, `opus`) or a full model name."""
    executable: Path

    async def answer(self, request: Request) -> Completion:
        messages = request.messages
        if request.schema is not None:
            messages = with_json_instruction(messages, request.schema)
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        prompt = "\n\n".join(
            m.content if m.role == "user" else f"(your earlier answer)\n{m.content}"
            for m in messages
            if m.role != "system"
        )
        result = await self._run(claude_command(self.executable, self.model, system), prompt)
        text = str(result.get("result") or "")
        usage = _usage(result)
        data = None
        if request.schema is not None:
            cut_off = result.get("stop_reason") == "max_tokens"
            data = read_json(text, request, cut_off=cut_off)
        models = result.get("modelUsage")
        answered = next(iter(models), self.model) if isinstance(models, dict) and models else ""
        return Completion(text=text, data=data, usage=usage, model=answered or self.model)

    async def _run(self, command: list[str], prompt: str) -> dict[str, Any]:
        code, out, err = await run_nested(command, prompt, prefix="onlooker-claude-")
        return self._result(code, out, err)

    def _result(self, code: int | None, out: bytes, err: bytes) -> dict[str, Any]:
        try:
            result = json.loads(out.decode("utf-8", "replace") or "null")
        except json.JSONDecodeError:
            result = None
        if not isinstance(result, dict):
            said = (err or out).decode("utf-8", "replace").strip()[-500:]
            raise ModelUnavailable(f"{self.name}: claude exited {code}: {said or 'no output'}")
        if result.get("is_error") or code != 0:
            said = str(result.get("result") or result.get("subtype") or "")[:500]
            raise ModelUnavailable(f"{self.name}: claude exited {code} with an error: {said}")
        return result


def _usage(result: dict[str, Any]) -> Usage:
    """Tokens the run used (cache reads and writes counted as input) and what the CLI says it
    cost (list prices: on a subscription this is the allowance used, not money charged)."""
    raw = result.get("usage")
    usage = raw if isinstance(raw, dict) else {}

    def count(key: str) -> int:
        value = usage.get(key)
        return int(value) if isinstance(value, int | float) else 0

    tokens = sum(
        count(k) for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    cost = result.get("total_cost_usd")
    return Usage(
        tokens, count("output_tokens"), float(cost) if isinstance(cost, int | float) else None
    )
