"""Claude Agent SDK hooks: each callback's input as an event, its feedback as additionalContext.

`onlooker_hooks(engine)` gives the HookMatchers for `ClaudeAgentOptions(hooks=...)`;
`with_onlooker(options, engine)` adds them to options that may already have hooks.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any, cast

try:
    import anyio
    from claude_agent_sdk import ClaudeAgentOptions, HookMatcher
    from claude_agent_sdk.types import HookContext, HookEvent, HookInput, SyncHookJSONOutput
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "onlooker.hosts.sdk.claude_agent_sdk needs the Claude Agent SDK: "
        "pip install 'onlooker[claude-sdk]'"
    ) from exc

from ...core.engine import Dispatch, Engine
from ...core.events import SessionStarted, SubagentStopped, TurnEnded
from ...text.redact import redact_record
from ...core.session import Session, SessionInfo
from ...store import Store
from ...store.home import project_for
from ...runtime.next_turn import next_turn_observations
from ..claude_code.hook_input import HookInput as Where
from ..claude_code.hook_input import hook_answer, parse_hook_input, subagent_session_id

__all__ = ["HOOK_EVENTS", "ClaudeAgentHooks", "onlooker_hooks", "same_observers", "with_onlooker"]

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
#: Events whose feedback is held for the session's next additionalContext.
_CHECKPOINTS = (TurnEnded, SubagentStopped)

SessionEngine = Callable[[Engine, Session], Engine]
"""Builds the engine of another session (a subagent's, or a later conversation's) from the main
engine."""


def same_observers(parent: Engine, session: Session) -> Engine:
    """Another session's engine: the main engine's observers and settings over its own session."""
    return dataclasses.replace(parent, observers=list(parent.specs), session=session)


class ClaudeAgentHooks:
    """One hook callback for every event, routing each to the engine of its session.

    The first conversation's events go to `engine`. Every other session gets an engine of its own,
    built by `session_engine` (by default with the main engine's observers): a later conversation
    when the hooks are reused for another client, and a subagent, whose tool calls (hook inputs
    with an `agent_id`) form the session `<session_id>/<agent_id>`. A subagent's session records
    its parent and agent type and is let go at SubagentStop, which itself goes to the parent.

    With a `store`, each event (redacted) is journaled with its assessments, findings of medium
    severity or more are kept, engines see their observers' open findings, and UserPromptSubmit
    also delivers the open-findings summary when it changed. Events are redacted before anything
    sees them, store or observer.

    Feedback at Stop and SubagentStop is not answered there (additionalContext on a stop makes the
    agent go on working, as for Claude Code hooks); it is held and delivered with the session's
    next additionalContext. A callback never raises into the SDK: an error is logged and
    answered with `{}`.
    """

    def __init__(
        self,
        engine: Engine,
        *,
        store: Store | None = None,
        project: str | None = None,
        session_engine: SessionEngine = same_observers,
    ):
        self.engine = engine
        self.store = store
        self.project = project
        """The store's project for every session; by default the one of the session's cwd."""
        self.session_engine = session_engine
        self._engines: dict[str, Engine] = {}
        self._projects: dict[str, str] = {}
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
        """The engine of a session seen so far (a subagent's until it stops)."""
        return self._engines.get(session_key)

    async def _answer(self, input: HookInput) -> dict[str, Any]:
        where, event = parse_hook_input(cast(dict[str, Any], input), self.engine.clock.now())
        event = redact_record(event)
        key = where.session_key
        engine = self._engine(key, where)
        await self._start(engine, key, where)
        dispatch = await engine.adispatch(event)
        self._record(key, dispatch, save=isinstance(event, _CHECKPOINTS))
        if isinstance(event, SubagentStopped):
            self._let_go(subagent_session_id(where.session_id, event.agent_id))
        if isinstance(event, _CHECKPOINTS):
            if dispatch.feedback:
                self._held[key] = _joined(self._held.get(key, ""), dispatch.feedback)
            return {}
        parts = [self._held.get(key, ""), dispatch.feedback]
        if where.event_name == "UserPromptSubmit" and self.store is not None:
            parts.append(
                next_turn_observations(self.store, project=self._projects[key], session_id=key)
            )
        answer = hook_answer(where.event_name, _joined(*parts))
        if answer:
            self._held.pop(key, None)
        return answer

    def _engine(self, key: str, where: Where) -> Engine:
        engine = self._engines.get(key)
        if engine is not None:
            return engine
        project = self.project or (project_for(where.cwd) if where.cwd else "default")
        main = self.engine
        if key == where.session_id and main.session.id in ("", key):
            engine = main
        else:
            saved = self.store.load_session(key) if self.store is not None else None
            engine = self.session_engine(main, saved or Session(key))
        if self.store is not None and (engine is not main or engine.findings is None):
            engine.findings = self.store.findings_for(project)
        self._engines[key] = engine
        self._projects[key] = project
        return engine

    async def _start(self, engine: Engine, key: str, where: Where) -> None:
        """Record a session's start when its first event arrives (the SDK has no SessionStart)."""
        if engine.session[SessionInfo].latest() is not None:
            return
        subagent = key != where.session_id
        started = SessionStarted(
            session_id=key,
            at=engine.clock.now(),
            cwd=where.cwd,
            project=self._projects[key],
            agent_name=where.agent_id if subagent else "",
            agent_type=where.agent_type,
            parent_session_id=where.session_id if subagent else "",
        )
        self._record(key, await engine.adispatch(started))

    def _record(self, key: str, dispatch: Dispatch, *, save: bool = False) -> None:
        if self.store is None:
            return
        project = self._projects[key]
        self.store.record_dispatch(dispatch, project=project)
        if save:
            self.store.save_session(self._engines[key].session, project=project)

    def _let_go(self, key: str) -> None:
        """Forget a stopped subagent's session (its snapshot saved first)."""
        engine = self._engines.pop(key, None)
        project = self._projects.pop(key, None)
        self._held.pop(key, None)
        if engine is not None and project is not None and self.store is not None:
            self.store.save_session(engine.session, project=project)


def onlooker_hooks(
    engine: Engine,
    *,
    store: Store | None = None,
    matcher: str | None = None,
    timeout: float | None = None,
) -> dict[HookEvent, list[HookMatcher]]:
    """HookMatchers feeding `engine` (and `store`, if given) for `ClaudeAgentOptions(hooks=...)`."""
    return ClaudeAgentHooks(engine, store=store).matchers(matcher=matcher, timeout=timeout)


def with_onlooker(
    options: ClaudeAgentOptions,
    engine: Engine,
    *,
    store: Store | None = None,
    matcher: str | None = None,
    timeout: float | None = None,
) -> ClaudeAgentOptions:
    """A copy of `options` whose hooks also feed `engine`; hooks already there run first."""
    hooks: dict[HookEvent, list[HookMatcher]] = {
        event: list(found) for event, found in (options.hooks or {}).items()
    }
    added_hooks = onlooker_hooks(engine, store=store, matcher=matcher, timeout=timeout)
    for event, added in added_hooks.items():
        hooks.setdefault(event, []).extend(added)
    return dataclasses.replace(options, hooks=hooks)


def _joined(*parts: str) -> str:
    return "\n\n".join(part for part in parts if part)


def _event_name(input: Any) -> str:
    return str(input.get("hook_event_name", "")) if isinstance(input, dict) else ""
