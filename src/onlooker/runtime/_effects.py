"""Side effects and the compliance verifier at the runtime's steps (specs/side-effects.md).

After a tool call: the due side-effect rules are queued as one job for the worker, so the hook
answers first; a host without a worker runs them on a thread of its own. At a stop (SubagentStop;
Stop for rules of the `main` agent): the agent's rule is checked inside the hook, the verdict
recorded, and a retry answered with the reason to block with.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from ..compliance import MAIN, ComplianceSettings, decide, missing
from ..config import ProjectConfig
from ..core.assessment import Finding
from ..core.engine import Engine
from ..core.events import (
    Event,
    SubagentStarted,
    SubagentStopped,
    ToolCall,
    TurnEnded,
    UserPrompt,
)
from ..core.session import Session, SessionInfo
from ..errors import OnlookerError
from ..side_effects import JOB_KIND, SideEffectSettings, job_payload, run_side_effects
from ..store import ComplianceVerdict, Store
from ._arrival import subagent_session_id
from ._memory import WakeWorker

log = logging.getLogger("onlooker.runtime")

COMPLIANCE_OBSERVER = "Compliance"
_CALLS = frozenset({"tool_call"})


class EffectSteps:
    """The side-effect and compliance work of one runtime, over its store."""

    def __init__(self, store: Store, wake_worker: WakeWorker | None) -> None:
        self.store = store
        self.wake_worker = wake_worker

    def at(
        self, event: Event, config: ProjectConfig, *, main: bool, session_id: str,
        session: Session, project: str, root: Path, engine: Callable[[str], Engine | None],
    ) -> str:  # fmt: skip
        """A tool call's side effects queued; at the main session's record of an agent's stop,
        the compliance verdict (its block reason, or '')."""
        if isinstance(event, ToolCall) and config.side_effects is not None:
            self.queue(event, config.side_effects, project=project, session_id=session_id,
                       root=root)  # fmt: skip
        if not isinstance(event, SubagentStopped | TurnEnded) or config.compliance is None:
            return ""
        if not main:
            return ""
        child = subagent_session_id(session_id, getattr(event, "agent_id", ""))

        def own() -> Session | None:
            found = engine(child)
            return found.session if found is not None else self.store.load_session(child)

        return self.verify(config.compliance, event, session=session, child=own,
                           project=project, root=root)  # fmt: skip

    def queue(
        self, call: ToolCall, settings: SideEffectSettings, *, project: str, session_id: str,
        root: Path,
    ) -> None:  # fmt: skip
        """Queue the side effects `call` sets off (none: nothing to do, nothing queued)."""
        rules = settings.due(call, root)
        if not rules:
            return
        payload = job_payload(call, rules, settings, session_id=session_id, project_root=root,
                              home=self.store.home)  # fmt: skip
        if self.wake_worker is None:  # no worker here: the host's own background thread
            threading.Thread(target=self._run_here, args=(project, payload), daemon=True,
                             name="onlooker-side-effects").start()  # fmt: skip
            return
        self.store.enqueue(JOB_KIND, payload, project=project, session_id=session_id)
        self.wake_worker(self.store.home)

    def _own_calls(
        self, project: str, session_id: str, kept: Sequence[ToolCall]
    ) -> tuple[ToolCall, ...]:
        """Every call a subagent made: its journal (the session keeps only the latest ones), and
        what its session holds that the journal does not yet."""
        try:
            read = self.store.journal(project, session_id).read(kinds=_CALLS)
        except OnlookerError:
            log.error("compliance: the calls of %s could not be read", session_id)
            return tuple(kept)
        journaled = [r for r in read.records if isinstance(r, ToolCall)]
        return _merged(journaled, kept)

    def _run_here(self, project: str, payload: dict[str, object]) -> None:
        try:
            run_side_effects(self.store, project, payload)
        except Exception:
            log.error("side effects failed: %s", traceback.format_exc())

    def verify(
        self,
        settings: ComplianceSettings,
        event: SubagentStopped | TurnEnded,
        *,
        session: Session,
        child: Callable[[], Session | None],
        project: str,
        root: Path,
    ) -> str:
        """Check the stopping agent's rule; record the verdict; the block reason of a retry."""
        subagent = isinstance(event, SubagentStopped)
        agent_type = (event.agent_type or "") if isinstance(event, SubagentStopped) else MAIN
        rule = settings.rule_for(agent_type)
        if rule is None:
            return ""
        agent_id = event.agent_id if isinstance(event, SubagentStopped) else ""
        if subagent:
            own = child()
            since = _started(session, agent_id, own)
            kept = own[ToolCall].all() if own is not None else ()
            calls = self._own_calls(project, subagent_session_id(session.id, agent_id), kept)
        else:
            prompt = session[UserPrompt].latest()
            since = prompt.at if prompt is not None else None
            calls = tuple(c for c in session[ToolCall].all() if since is None or c.at >= since)
        lacking = missing(rule, root, since=since, calls=calls)
        retries = 0
        for earlier in self.store.effects.last_verdicts(
            session.id, agent_id, settings.max_retries + 1
        ):
            if earlier.verdict == "pass" or (earlier.verdict == "gave_up" and not agent_id):
                break  # a subagent that gave up stays given up; the main agent's next turn not
            retries += earlier.verdict == "retry"
        verdict = decide(settings, rule, lacking, retries)
        self.store.record_changes(
            [
                ComplianceVerdict(
                    project=project,
                    session_id=session.id,
                    agent_id=agent_id,
                    agent_type=agent_type,
                    verdict=verdict.verdict,
                    missing=verdict.missing,
                    attempt=verdict.attempt,
                )
            ],
            project=project,
            session_id=session.id,
        )
        if verdict.verdict == "gave_up":
            who = f"the {agent_type} agent" + (f" ({agent_id})" if agent_id else "")
            self.store.create(
                [
                    Finding(
                        content=f"{who} stopped without what its role requires after "
                        f"{retries} retries: " + "; ".join(verdict.missing),
                        category="compliance",
                        observer=COMPLIANCE_OBSERVER,
                        severity="high",
                        session_id=session.id,
                        source_ref=agent_id or None,
                    )
                ],
                project=project,
                session_id=session.id,
            )
        return verdict.reason


def _merged(journaled: Sequence[ToolCall], kept: Sequence[ToolCall]) -> tuple[ToolCall, ...]:
    """The calls of the journal, then those of the session's window it does not hold yet."""
    ids = {call.call_id for call in journaled if call.call_id}
    return (*journaled, *(c for c in kept if not c.call_id or c.call_id not in ids))


def _started(parent: Session, agent_id: str, own: Session | None) -> datetime | None:
    """When a subagent started: its SubagentStart, else its session's first record."""
    for started in parent[SubagentStarted].newest_first():
        if started.agent_id == agent_id:
            return started.at
    info = own[SessionInfo].latest() if own is not None else None
    return info.started.at if info is not None else None
