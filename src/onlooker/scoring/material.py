"""What the judge reads about a session: its events from the journal (or a transcript turned into
events), reduced to the instruction, the response, the tool calls and whether it was compacted;
and the facts that decide whether it is due (which agent, where it started, what is new).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.events import (
    AssistantMessage,
    Compacting,
    Event,
    SessionStarted,
    SubagentStopped,
    ToolCall,
    TurnEnded,
    UserPrompt,
)
from ..store import Store
from ..store.score_records import AgentType
from .judge import ScorerInput, ToolUse

TITLE_LIMIT = 80
FRESH_SOURCES = ("startup", "clear")
"""How a session's first recorded event may start for it to be scored automatically: onlooker saw
it begin (a session already running when onlooker was installed is first seen resumed)."""
DELEGATING_TOOLS = ("Task", "Agent")
OWN_COMMANDS = ("/onlooker:", "Here is onlooker's answer to `/observer ")
"""How a prompt that only runs one of onlooker's own commands begins: Claude Code's slash commands
of onlooker's plugin (`/onlooker:status`), and opencode's `/observer …` as onlooker's plugin
rewrites it (hosts/opencode/plugin/onlooker.ts). A session of such prompts alone is not scored."""
PRIMARY_NAME = "main"
"""The name of a main session's agent when the host names none."""


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """Who ran a session and how far it has gone."""

    session_id: str
    agent_name: str = ""
    agent_type: AgentType = "primary"
    parent_session_id: str = ""
    seen_start: bool = False
    """onlooker saw the session begin (the first-run guard)."""
    last_seq: int = 0
    last_message_seq: int = 0
    """The seq of the session's latest prompt or response: a score older than it is stale."""
    title: str = ""
    own_commands_only: bool = False
    """Every prompt of the session ran one of onlooker's own commands: nothing to judge."""


def own_command(text: str) -> bool:
    """The prompt runs one of onlooker's own commands (OWN_COMMANDS)."""
    return text.lstrip().startswith(OWN_COMMANDS)


def session_events(store: Store, project: str, session_id: str) -> list[Event]:
    """Every event the session's journal holds, in order."""
    read = store.journal(project, session_id).read()
    return [entry.record for entry in read.entries if isinstance(entry.record, Event)]


def with_transcript(
    events: Sequence[Event], transcript: Sequence[Event], session_id: str
) -> list[Event]:
    """The journal's events, followed by what only the session's transcript holds: a subagent's
    hooks journal its start and tool calls, never its instruction or its answers, which its own
    transcript (Claude Code's SubagentStop `agent_transcript_path`) has. Tool calls come from
    the transcript too when the journal has none. The added events get seqs after the journal's,
    in transcript order, so scoring it again finds nothing new."""
    if not transcript:
        return list(events)
    wanted: tuple[type[Event], ...] = (UserPrompt, AssistantMessage)
    if any(isinstance(e, wanted) for e in events):
        return list(events)
    if not any(isinstance(e, ToolCall) for e in events):
        wanted = (*wanted, ToolCall)
    last = max((e.seq for e in events), default=0)
    added = [e for e in transcript if isinstance(e, wanted)]
    return [
        *events,
        *(
            dataclasses.replace(e, session_id=session_id, seq=last + n)
            for n, e in enumerate(added, 1)
        ),
    ]


def facts(session_id: str, events: Sequence[Event]) -> SessionFacts:
    """Who ran the session (a subagent is named by its type, which names its prompt file; the
    main agent by its type, else `main`) and how far it has gone."""
    start = next((e for e in events if isinstance(e, SessionStarted)), None)
    subagent = "/" in session_id or bool(start and start.parent_session_id)
    if start is None:
        name = ""
    elif subagent:
        name = start.agent_type or start.agent_name
    else:  # the host's agent type, else the agent its latest task was for (opencode's)
        named = [
            e.agent for e in events
            if isinstance(e, UserPrompt) and e.agent and not own_command(e.text)
        ]  # fmt: skip
        name = start.agent_type or (named[-1] if named else PRIMARY_NAME)
    parent = ""
    if subagent:
        parent = (start.parent_session_id if start else "") or session_id.split("/", 1)[0]
    prompts = [e for e in events if isinstance(e, UserPrompt)]
    messages = [e for e in events if isinstance(e, UserPrompt | AssistantMessage | TurnEnded)]
    return SessionFacts(
        session_id=session_id,
        agent_name=name,
        agent_type="subagent" if subagent else "primary",
        parent_session_id=parent,
        # any fresh start counts: older opencode journals may hold a resumed start before the
        # created one (a session running before onlooker came is first seen resumed, never fresh)
        seen_start=any(
            isinstance(e, SessionStarted) and (subagent or e.source in FRESH_SOURCES)
            for e in events
        ),
        last_seq=max((e.seq for e in events), default=0),
        last_message_seq=max((e.seq for e in messages), default=0),
        title=_title(prompts[0].text if prompts else ""),
        own_commands_only=bool(prompts) and all(own_command(p.text) for p in prompts),
    )


def scorer_input(
    session_id: str,
    events: Sequence[Event],
    *,
    parent_events: Sequence[Event] = (),
    agents_md: str | None = None,
    agent_prompt: str | None = None,
    agent_name: str = "",
    guidance: str = "",
) -> ScorerInput:
    """The judge's material for a session; a subagent's instruction is what its parent asked of
    it (the parent's delegating tool calls)."""
    instruction = "\n\n".join(e.text for e in events if isinstance(e, UserPrompt) and e.text)
    if not instruction and parent_events:
        asked = [
            str(e.input.get("prompt") or e.input.get("description") or "")
            for e in parent_events
            if isinstance(e, ToolCall) and e.tool in DELEGATING_TOOLS
        ]
        instruction = "\n\n".join(a for a in asked if a)
    response = [e.text for e in events if isinstance(e, AssistantMessage) and e.text]
    response += [e.last_message for e in events if isinstance(e, TurnEnded) and e.last_message]
    response += [
        e.last_message for e in parent_events if isinstance(e, SubagentStopped) and e.last_message
    ]
    calls = tuple(
        ToolUse(e.tool, _args(e), e.output or (e.error or ""), e.ok)
        for e in events
        if isinstance(e, ToolCall)
    )
    return ScorerInput(
        session_id=session_id,
        instruction=instruction or "(no instruction recorded)",
        response="\n\n".join(dict.fromkeys(response)),
        tool_calls=calls,
        agents_md=agents_md,
        agent_prompt=agent_prompt,
        agent_name=agent_name,
        guidance=guidance,
        compacted=any(isinstance(e, Compacting) for e in events),
    )


def _args(call: ToolCall) -> str:
    return json.dumps(call.input, ensure_ascii=False, separators=(",", ":"))


def _title(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_LIMIT else flat[: TITLE_LIMIT - 1] + "…"
