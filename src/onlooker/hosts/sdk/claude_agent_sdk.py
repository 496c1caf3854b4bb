"""Claude Agent SDK hooks: each callback's input as an event, its feedback as additionalContext.

`onlooker_hooks(engine)` gives the HookMatchers for `ClaudeAgentOptions(hooks=...)`;
`with_onlooker(options, engine)` adds them to options that may already have hooks.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
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

from ...config import Loaded
from ...core.engine import Engine
from ...core.session import Session
from ...runtime import Arrival, Runtime
from ...store import Store
from ..claude_code.hook_input import hook_answer, parse_hook_input

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

SessionEngine = Callable[[Engine, Session], Engine]
"""Builds the engine of another session (a subagent's, or a later conversation's) from the main
engine."""


def same_observers(parent: Engine, session: Session) -> Engine:
    """Another session's engine: the main engine's observers and settings over its own session."""
    return dataclasses.replace(parent, observers=list(parent.specs), session=session)


class ClaudeAgentHooks:
    """One hook callback for every event, each translated onto the Runtime.

    The first conversation's events go to `engine`. Every other session gets an engine of its own,
    built by `session_engine` (by default with the main engine's observers): a later conversation
    when the hooks are reused for another client, and a subagent, whose tool calls (hook inputs
    with an `agent_id`) form the session `<session_id>/<agent_id>`. A subagent's session records
    its parent and agent type and is let go at SubagentStop, which itself goes to the parent.

    With a `store`, the Runtime journals each event (redacted) with its assessments, keeps findings
    of medium severity or more, shows engines their observers' open findings, captures memory,
    runs the project's reviewers, and adds the open-findings summary at UserPromptSubmit when it
    changed. Events are redacted before anything sees them, store or observer.

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
        self.runtime = Runtime(
            store, clock=engine.clock, engine_for=self._engine_for, project=project,
            wake_worker=_worker_starter() if store is not None else None, host="claude-agent-sdk",
        )  # fmt: skip
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
        return self.runtime.engine(session_key)

    async def _answer(self, input: HookInput) -> dict[str, Any]:
        where, event = parse_hook_input(cast(dict[str, Any], input), self.engine.clock.now())
        delivery = await self.runtime.ahandle(where.arrival(event))
        return hook_answer(where.event_name, delivery.context, block_reason=delivery.block)

    def _engine_for(
        self, key: str, saved: Session | None, loaded: Loaded, arrival: Arrival
    ) -> Engine:
        main = self.engine
        if key == arrival.session_id and main.session.id in ("", key):
            return main
        return self.session_engine(main, saved or Session(key))


def _worker_starter() -> Callable[[Path], None]:
    from ...daemon.worker import ensure_worker

    return ensure_worker


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


def _event_name(input: Any) -> str:
    return str(input.get("hook_event_name", "")) if isinstance(input, dict) else ""
