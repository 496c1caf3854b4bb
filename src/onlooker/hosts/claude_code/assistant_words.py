"""What the assistant wrote since the last hook, recorded before the hook's own event, for projects
whose reviewers read the conversation (specs/hosts.md, "The assistant's words").

Claude Code's hooks carry the prompt and the tool calls, never the assistant's text; its
transcript (`transcript_path`) has it, and a subagent's (`agent_transcript_path` at SubagentStop).
Nothing is read for a project without a conversation reviewer; thinking blocks only when one of
them takes `include_reasoning`. Each message becomes an AssistantMessage arrival of its session,
held like any event the host cannot deliver at, so the order of the session stays what happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ...reviewers.config import ReviewSetup
from ...runtime import Arrival
from .hook_input import HookInput
from .transcript_tail import TranscriptTails

READ_AT = frozenset(
    {
        "UserPromptSubmit",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SubagentStop",
        "PreCompact",
        "SessionEnd",
    }
)
"""Hooks before whose event the transcript is read: the assistant wrote before each of them."""


class AssistantWords:
    """Reads each session's transcript from where the last hook left it."""

    def __init__(self) -> None:
        self.tails = TranscriptTails()

    def before(
        self,
        where: HookInput,
        data: Mapping[str, Any],
        setup: ReviewSetup | None,
        now: datetime,
    ) -> list[Arrival]:
        """The assistant messages to hand the Runtime before this hook's own event."""
        watch = setup.conversation if setup is not None else None
        if watch is None or where.event_name not in READ_AT:
            return []
        if where.event_name == "SubagentStop":
            path = data.get("agent_transcript_path")
            messages = self.tails.new_messages(
                path if isinstance(path, str) else "", reasoning=watch.include_reasoning,
                now=now, sidechain=True,
            )  # fmt: skip
        elif where.agent_id:  # a subagent's tool hook carries its parent's transcript
            return []
        else:
            messages = self.tails.new_messages(
                where.transcript_path, reasoning=watch.include_reasoning, now=now
            )
        at = {"cwd": where.cwd, "agent_id": where.agent_id, "agent_type": where.agent_type}
        return [Arrival(m, where.session_id, deliverable=False, **at) for m in messages]
