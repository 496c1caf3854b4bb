"""Claude Agent SDK hooks: each callback's input as an event, its feedback as additionalContext.

`onlooker_hooks(engine)` gives the HookMatchers for `ClaudeAgentOptions(hooks=...)`;
`with_onlooker(options, engine)` adds them to options that may already have hooks.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable
from typing import Any, cast

try:
    import anyio
    from claude_agent_sdk import ClaudeAgentOptions, HookMatcher
    from claude_agent_sdk.types import HookContext, HookEvent, HookInput, SyncHookJSONOutput
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "onlooker.adapters.claude_agent_sdk needs the Claude Agent SDK: "
        "pip install 'onlooker[claude-sdk]'"
    ) from exc

from ..engine import Engine
from ..events import SessionStarted, SubagentStopped, TurnEnded
from ..session import Session, SessionInfo
from .claude_code import HookInput as Where
from .claude_code import hook_answer, parse_hook_input, subagent_session_id

__all__ = ["HOOK_EVENTS", "ClaudeAgentHooks", "onlooker_hooks", "with_onlooker"]

log = logging.getLogger(__name__)

#: The SDK hook events onlooker listens to. The SDK has no SessionStart or SessionEnd hook; a
#: session's start is recorded with its first event.
HOOK_EVENTS: tuple[HookEvent, ...] = (
    "PostToolUse",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
)
_TOOL_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure"})

SubagentEngine = Callable[[Engine, Session], Engine]
"""Builds the engine for a subagent's session from the main engine."""


def same_observers(parent: Engine, session: Session) -> Engine:
    """A subagent's engine: the main engine's observers and settings over its own session."""
    return dataclasses.replace(parent, observers=list(parent.specs), session=session)


class ClaudeAgentHooks:
    """One hook callback for every event, routing each to the engine of its session.

    The main agent's events go to `engine`. A subagent's tool calls (hook inputs with an
    `agent_id`) form a session of their own, `<session_id>/<agent_id>`, whose engine
    `subagent_engine` builds (by default with the main engine's observers); that session records
    its parent and agent type, and is let go at SubagentStop, which itself goes to the parent.

    Feedback at Stop and SubagentStop is not answered there (additionalContext on a stop makes the
    agent go on working, as for Claude Code hooks); it is held and delivered with the session's
    next additionalContext. A callback never raises into the SDK: an error is logged and
    answered with `{}`.
    """

    def __init__(self, engine: Engine, *, subagent_engine: SubagentEngine = same_observers):
        self.engine = engine
        self.subagent_engine = subagent_engine
        self._subagents: dict[str, Engine] = {}
        self._held: dict[str, str] = {}
        self._lock = anyio.Lock()

    def matchers(
        self,
        *,
        matcher: str | None = None,
        timeout: float | None = None,
        events: tuple[HookEvent, ...] = HOOK_EVENTS,
    ) -> dict[HookEvent, list[HookMatcher]]:
        """One HookMatcher per event; `matcher` (a tool-name pattern) applies to the tool events."""
        return {
            event: [
                HookMatcher(
                    matcher=matcher if event in _TOOL_EVENTS else None,
                    hooks=[self.callback],
                    timeout=timeout,
                )
            ]
            for event in events
        }

    async def callback(
        self, input: HookInput, tool_use_id: str | None, context: HookContext
    ) -> SyncHookJSONOutput:
        """The SDK HookCallback: `{"hookSpecificOutput": {...}}` with feedback, else `{}`."""
        try:
            async with self._lock:
                return cast(SyncHookJSONOutput, await self._answer(input))
        except Exception:
            log.exception("onlooker hook %r failed", _event_name(input))
            return {}

    def engine_for(self, session_key: str) -> Engine | None:
        """The engine of a session: the main one, or a running subagent's."""
        if session_key == self.engine.session.id:
            return self.engine
        return self._subagents.get(session_key)

    async def _answer(self, input: HookInput) -> dict[str, Any]:
        where, event = parse_hook_input(cast(dict[str, Any], input), self.engine.clock.now())
        key = where.session_key
        engine = self._engine(key, where)
        await self._start(engine, key, where)
        feedback = (await engine.adispatch(event)).feedback
        if isinstance(event, SubagentStopped):
            self._subagents.pop(subagent_session_id(where.session_id, event.agent_id), None)
        if isinstance(event, TurnEnded | SubagentStopped):
            if feedback:
                self._held[key] = _joined(self._held.get(key, ""), feedback)
            return {}
        answer = hook_answer(where.event_name, _joined(self._held.get(key, ""), feedback))
        if answer:
            self._held.pop(key, None)
        return answer

    def _engine(self, key: str, where: Where) -> Engine:
        if key == where.session_id:
            return self.engine
        engine = self._subagents.get(key)
        if engine is None:
            engine = self._subagents[key] = self.subagent_engine(self.engine, Session(key))
        return engine

    async def _start(self, engine: Engine, key: str, where: Where) -> None:
        """Record a session's start when its first event arrives (the SDK has no SessionStart)."""
        session = engine.session
        if session.id and session.id != key:
            raise ValueError(f"engine session is {session.id!r}, hook input is for {key!r}")
        if session[SessionInfo].latest() is not None:
            return
        subagent = key != where.session_id
        await engine.adispatch(
            SessionStarted(
                session_id=key,
                at=engine.clock.now(),
                cwd=where.cwd,
                project=os.path.basename(where.cwd.rstrip("/")) if where.cwd else "",
                agent_name=where.agent_id if subagent else "",
                agent_type=where.agent_type,
                parent_session_id=where.session_id if subagent else "",
            )
        )


def onlooker_hooks(
    engine: Engine, *, matcher: str | None = None, timeout: float | None = None
) -> dict[HookEvent, list[HookMatcher]]:
    """HookMatchers feeding `engine` for `ClaudeAgentOptions(hooks=...)`."""
    return ClaudeAgentHooks(engine).matchers(matcher=matcher, timeout=timeout)


def with_onlooker(
    options: ClaudeAgentOptions,
    engine: Engine,
    *,
    matcher: str | None = None,
    timeout: float | None = None,
) -> ClaudeAgentOptions:
    """A copy of `options` whose hooks also feed `engine`; hooks already there run first."""
    hooks: dict[HookEvent, list[HookMatcher]] = {
        event: list(found) for event, found in (options.hooks or {}).items()
    }
    for event, added in onlooker_hooks(engine, matcher=matcher, timeout=timeout).items():
        hooks.setdefault(event, []).extend(added)
    return dataclasses.replace(options, hooks=hooks)


def _joined(held: str, feedback: str) -> str:
    return "\n\n".join(part for part in (held, feedback) if part)


def _event_name(input: Any) -> str:
    return str(input.get("hook_event_name", "")) if isinstance(input, dict) else ""
