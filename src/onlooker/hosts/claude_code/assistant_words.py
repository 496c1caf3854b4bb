"""What the assistant wrote since the last hook, recorded before the hook's own event, for projects
whose reviewers read the conversation (specs/hosts.md, "The assistant's words").

Claude Code's hooks carry the prompt and the tool calls, never the assistant's text; its
transcript (`transcript_path`) has it, and a subagent's (`agent_transcript_path` at SubagentStop,
beside its parent's for the subagent's tool hooks).
Nothing is read for a project without a conversation reviewer; thinking blocks only when one of
them takes `include_reasoning`. Each message becomes an AssistantMessage arrival of its session,
held like any event the host cannot deliver at, so the order of the session stays what happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from ...core.events import AssistantMessage
from ...reviewers.config import ReviewSetup
from ...runtime import Arrival
from ...text.clipping import clip
from .hook_input import HookInput
from .transcript_tail import MESSAGE_LIMIT, TranscriptTails

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
            messages += _last_message(data, messages, where.agent_id, now)
        elif where.agent_id:  # a subagent's tool hook carries its parent's transcript
            messages = self.tails.new_messages(
                subagent_transcript(where.transcript_path, where.agent_id),
                reasoning=watch.include_reasoning, now=now, sidechain=True,
            )  # fmt: skip
        else:
            messages = self.tails.new_messages(
                where.transcript_path, reasoning=watch.include_reasoning, now=now
            )
        at = {"cwd": where.cwd, "agent_id": where.agent_id, "agent_type": where.agent_type}
        return [Arrival(m, where.session_id, deliverable=False, **at) for m in messages]


def subagent_transcript(parent: str, agent_id: str) -> str:
    """Where Claude Code (2.1.328) writes a subagent's transcript, beside its parent's:
    `<session>/subagents/agent-<agent_id>.jsonl` ('' when the parent's is not known)."""
    if not parent.endswith(".jsonl") or not agent_id or "/" in agent_id:
        return ""
    return str(Path(parent[: -len(".jsonl")]) / "subagents" / f"agent-{agent_id}.jsonl")


def _last_message(
    data: Mapping[str, Any], read: list[AssistantMessage], agent_id: str, now: datetime
) -> list[AssistantMessage]:
    """SubagentStop's `last_assistant_message` when its transcript did not have it yet (Claude
    Code writes that line after the hook): the subagent's session ends with what it answered."""
    last = data.get("last_assistant_message")
    if not isinstance(last, str) or not last.strip():
        return []
    if read and read[-1].text.strip() == last.strip():
        return []
    text = clip(last, MESSAGE_LIMIT)
    return [AssistantMessage(at=now, text=text, input_id=f"last:{agent_id}"[:64])]
