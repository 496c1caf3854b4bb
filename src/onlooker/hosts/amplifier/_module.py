"""The Amplifier hook module: `mount(coordinator, config)` registers one handler per event; each
event becomes an Arrival on the Runtime and the Delivery an `inject_context` HookResult.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

try:
    from amplifier_core import HookResult
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "onlooker.hosts.amplifier needs amplifier-core: pip install 'onlooker[amplifier]'"
    ) from exc

from ...config import ProjectConfigs
from ...core.clock import Clock, SystemClock
from ...core.events import AssistantMessage
from ...runtime import Arrival, Runtime
from ...store import Store
from ._events import DELIVERED_AT, EVENTS, HOST, event_of
from ._settings import ModuleSettings, module_settings

__all__ = ["PRIORITY", "ObserverHooks", "framed", "mount"]

log = logging.getLogger("onlooker.amplifier")

#: Handlers run in ascending priority; onlooker's run after the default (0) ones.
PRIORITY = 50
CONTINUE = HookResult(action="continue")


def framed(text: str) -> str:
    """Feedback as Amplifier's observer bundle frames what it injects."""
    return f'<system-reminder source="observers">\n{text}\n</system-reminder>'


class ObserverHooks:
    """One Amplifier session's events fed to the Runtime, answered in Amplifier's terms.

    A handler never raises into the session: a failure is logged and answered with `continue`.
    Handlers of one session take turns (an orchestrator runs tools in parallel), since the Runtime
    takes a session's arrivals one at a time.
    """

    def __init__(
        self,
        runtime: Runtime,
        settings: ModuleSettings,
        *,
        session_id: str = "",
        cwd: str = "",
        clock: Clock | None = None,
    ) -> None:
        self.runtime = runtime
        self.settings = settings
        self.session_id = session_id
        self.cwd = cwd or os.getcwd()
        self.clock = clock or runtime.clock
        self._turn = asyncio.Lock()

    def handler(self, name: str) -> Callable[[str, dict[str, Any]], Any]:
        async def handle(event: str, data: dict[str, Any]) -> HookResult:
            return await self.answer(event or name, data)

        handle.__name__ = f"onlooker_{name.replace(':', '_')}"
        return handle

    async def answer(self, name: str, data: Mapping[str, Any]) -> HookResult:
        """The HookResult for one event: `inject_context` with the feedback, else `continue`."""
        try:
            async with self._turn:
                return await self._answer(name, data)
        except Exception:
            log.exception("onlooker: the %s hook failed", name)
            return CONTINUE

    async def _answer(self, name: str, data: Mapping[str, Any]) -> HookResult:
        event = event_of(name, data, at=self.clock.now(), cwd=self.cwd)
        if isinstance(event, AssistantMessage):
            event = self._kept(event)
        if event is None:
            return CONTINUE
        session_id = str(data.get("session_id") or self.session_id)
        arrival = Arrival(event, session_id, cwd=self.cwd, deliverable=name in DELIVERED_AT)
        delivery = await self.runtime.ahandle(arrival)
        if not delivery.context:
            return CONTINUE
        return HookResult(
            action="inject_context",
            context_injection=framed(delivery.context),
            context_injection_role="system",
            ephemeral=self.settings.ephemeral,
        )

    def _kept(self, said: AssistantMessage) -> AssistantMessage | None:
        """What the assistant wrote is kept for a project whose reviewers read the conversation,
        its reasoning only when one of them takes it (as in Claude Code)."""
        setup = self.runtime.review_setup(self.cwd)
        watch = setup.conversation if setup is not None else None
        if watch is None:
            return None
        if not watch.include_reasoning and said.reasoning:
            said = dataclasses.replace(said, reasoning="")
        return said if said.text or said.reasoning else None

    def close(self) -> None:
        """Save the session's state (at the module's cleanup)."""
        self.runtime.close()


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Amplifier's module entry: register onlooker's handlers on the coordinator's hooks.

    `config` is the observer bundle's hooks-observations config (`hooks`, `execution`,
    `observers`, `post_processing`) plus `ephemeral`; its reviewers replace the project file's.
    Bad config raises ConfigInvalid naming each field. Returns the cleanup, which unregisters the
    handlers and saves the session.
    """
    settings = module_settings(config or {})
    store = Store()
    runtime = Runtime(
        store,
        clock=SystemClock(),
        configs=ProjectConfigs(overrides=dict(settings.overrides)),
        wake_worker=_worker_starter(),
        host=HOST,
    )
    hooks = ObserverHooks(
        runtime, settings, session_id=_session_id(coordinator), cwd=_working_dir(coordinator)
    )
    registry = coordinator.hooks
    unregister = [
        registry.register(name, hooks.handler(name), priority=PRIORITY, name=f"onlooker:{name}")
        for name in EVENTS
    ]

    def cleanup() -> None:
        for undo in unregister:
            try:
                undo()
            except Exception:
                log.debug("onlooker: unregistering a handler failed", exc_info=True)
        try:
            hooks.close()
        finally:
            store.close()

    return cleanup


def _worker_starter() -> Callable[[Any], None]:
    from ...daemon.worker import ensure_worker

    return ensure_worker


def _session_id(coordinator: Any) -> str:
    value = getattr(coordinator, "session_id", None)
    return value if isinstance(value, str) else ""


def _working_dir(coordinator: Any) -> str:
    """The session's folder: the `session.working_dir` capability when an app sets one."""
    getter = getattr(coordinator, "get_capability", None)
    value = getter("session.working_dir") if callable(getter) else None
    return str(value) if value else os.getcwd()
