"""The files an improvement changes, as scoring names them: the project's instructions file and an
agent's prompt (Claude Code's `.claude/agents/<name>.md`; opencode's `.opencode/agents/<name>.md`
or `opencode.json`'s `agent.<name>.prompt`, inline or `{file:…}`). Writing them (managed section,
lock, backup, rollback) is `onlooker.improvement`'s; the judge reads them through it too, so it
sees an inline opencode prompt as the agent does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import ImprovementError
from ..improvement import InstructionTarget, current_text
from .settings import ScoringSettings

READ_LIMIT = 64 * 1024
"""Characters of a file the judge is given at most (the prompt cuts it further)."""


def project_target(root: Path, settings: ScoringSettings) -> InstructionTarget:
    """The instructions file: `instructions_file` when set, else AGENTS.md, else CLAUDE.md."""
    return InstructionTarget.project(root, settings.instructions_file or None)


def agent_target(root: Path, agent_name: str, host: str = "") -> InstructionTarget:
    """Where the agent's prompt lives, as its host reads it: an opencode agent's is opencode's (a
    Markdown file under `.opencode/agents/`, or its prompt in opencode.json, else a new
    `.opencode/agents/<name>.md`); otherwise Claude Code's file when it has one, else opencode's
    when that exists, else a new Claude Code agent file."""
    if host == "opencode":
        return InstructionTarget.agent(root, agent_name, host="opencode")
    claude = InstructionTarget.agent(root, agent_name, host="claude_code")
    if claude.path.is_file():
        return claude
    opencode = InstructionTarget.agent(root, agent_name, host="opencode")
    return opencode if opencode.path.is_file() else claude


def instructions_text(root: Path, settings: ScoringSettings) -> str | None:
    """The instructions file's text for the judge (None: the project has none)."""
    return _read(lambda: project_target(root, settings))


def agent_prompt_text(root: Path, agent_name: str, host: str = "") -> str | None:
    """The agent's prompt as the agent reads it (None: no prompt, or no agent name)."""
    if not agent_name:
        return None
    return _read(lambda: agent_target(root, agent_name, host))


def _read(find: Callable[[], InstructionTarget]) -> str | None:
    try:
        target = find()
        if not target.path.is_file():
            return None
        return current_text(target)[:READ_LIMIT]
    except (ImprovementError, OSError):
        return None
