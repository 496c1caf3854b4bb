"""Answer one Claude Code hook: parse it, run the due observers, store it, say what to deliver.

Sessions stay warm in memory (least recently used first out); a cold one is loaded from its
snapshot plus the journal tail, so each hook costs the same at call 10 and at call 5,000.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .hook_input import HookInput, HookInputError, hook_answer, parse_hook_input, read_hook_input, subagent_session_id
from ...core.clock import Clock, SystemClock
from ...config import Loaded, ProjectConfigs
from ...core.engine import Dispatch, Engine
from ...core.events import Event, SessionEnded, SessionStarted, SubagentStopped, ToolCall, TurnEnded
from ...memory.capture import capture
from ...memory.extract import ABANDONED_AFTER, JOB_KIND, extraction_due, extraction_job
from ...memory.inject import session_start_digest
from ...memory.settings import MemorySettings, memory_on
from ...text.redact import redact, redact_record
from ...core.session import Session, SessionInfo
from ...store import Store
from ...store.home import project_root
from ...memory._store import Memories
from ...runtime.next_turn import next_turn_observations
from ...daemon.client import SPOOL_DIR

if TYPE_CHECKING:
    from ...llm.model import Model
    from ...reviewers.config import ReviewSetup
    from ...reviewers.handoff import ReviewAnswer

E = TypeVar("E", bound=Event)
T = TypeVar("T")

log = logging.getLogger("onlooker.hook")
log.addHandler(logging.NullHandler())  # the service configures real handlers

#: Warm sessions kept in memory.
WARM_SESSIONS = 64
#: Save a session's snapshot at least this often (events); the journal covers the rest.
SNAPSHOT_EVERY = 25
#: Events after which a session's snapshot is saved at once.
CHECKPOINTS = (TurnEnded, SessionEnded, SubagentStopped)


@dataclass
class _Warm:
    engine: Engine
    project: str
    loaded: Loaded
    """The project config the engine's observers come from."""
    unsaved: int = 0
    memory: MemorySettings = field(default_factory=MemorySettings)
    """The project's memory settings (its config's `memory` section, else the handler's)."""
    remember: bool = True
    """Memory is on for the project (enabled, no `.onlooker/no-memory` marker)."""


@dataclass
class HookHandler:
    """Turns hook inputs into answers, keeping sessions warm between hooks."""

    store: Store
    clock: Clock = field(default_factory=SystemClock)
    configs: ProjectConfigs = field(default_factory=ProjectConfigs)
    """Project configs by working directory: which observers run, with what options."""
    warm_limit: int = WARM_SESSIONS
    reviewers: Callable[[str], ReviewSetup | None] | None = None
    """Project root -> its reviewer observers and execution settings (None: no reviewers);
    by default the project config's (`configs`)."""
    models: Callable[[str], Model] | None = None
    """Model string -> Model for reviewers; default `onlooker.llm.model_from_string`, cached."""
    review_budget: float | None = None
    """Seconds parallel reviewers may take in one hook (the service sets `parallel_budget()`)."""
    memory: MemorySettings = field(default_factory=MemorySettings)

    def __post_init__(self) -> None:
        self._warm: OrderedDict[str, _Warm] = OrderedDict()
        self._models: Callable[[str], Model] | None = None
        self._memories = Memories(self.store)

    def handle(self, raw: bytes) -> bytes:
        """The bytes to print for this hook input ('' for nothing). Never raises."""
        try:
            where, event = parse_hook_input(read_hook_input(raw), self.clock.now())
        except HookInputError as exc:
            self.spool(raw, str(exc))
            return b""
        event = redact_record(event)
        try:
            answer = self._answer(where, event)
        except Exception as exc:
            log.error("hook %s failed: %s", where.event_name, traceback.format_exc())
            self.spool(raw, f"{type(exc).__name__}: {exc}")
            return b""
        return json.dumps(answer, ensure_ascii=False).encode() if answer else b""

    def close(self) -> None:
        """Save every warm session (the service calls this before it exits)."""
        for key in list(self._warm):
            self._save(key)
        self._warm.clear()

    # -- the work ---------------------------------------------------------------------------------

    def _answer(self, where: HookInput, event: Event) -> dict[str, object]:
        key = where.session_key
        loaded = self.configs.lookup(where.cwd)
        warm = self._session(key, where, loaded)
        if warm.loaded is not loaded:  # the config file changed: same session, new observers
            warm.engine = Engine(loaded.observers, session=warm.engine.session, clock=self.clock)
            warm.loaded = loaded
            warm.memory = loaded.memory or self.memory
            warm.remember = memory_on(where.cwd, warm.memory)
        dispatch = warm.engine.dispatch(_with_deadline(event, loaded))
        self.store.record_dispatch(dispatch, project=warm.project)
        if warm.remember and isinstance(event, ToolCall):
            self._memory(capture, self._memories, event, project=warm.project,
                         session_id=where.session_id)  # fmt: skip
        if (
            warm.remember
            and isinstance(event, TurnEnded | SessionEnded)
            and key == where.session_id
        ):
            self._memory(self._extract_later, warm, key, final=isinstance(event, SessionEnded))
        if warm.remember and isinstance(event, SessionStarted) and key == where.session_id:
            self._memory(self._extract_abandoned, warm, key)
        warm.unsaved += 1
        if isinstance(event, CHECKPOINTS) or warm.unsaved >= SNAPSHOT_EVERY:
            self._save(key)
        reviewed = self._review(key, where, warm, event, loaded)
        if isinstance(event, SessionEnded):
            self._forget(key)
        if isinstance(event, SubagentStopped):
            self._forget(subagent_session_id(where.session_id, event.agent_id))
        context = self._context(where, warm, dispatch, reviewed.context if reviewed else "")
        block = reviewed.block if reviewed else ""
        return hook_answer(where.event_name, context, block_reason=block)

    def _review(
        self, key: str, where: HookInput, warm: _Warm, event: Event, loaded: Loaded
    ) -> ReviewAnswer | None:
        """Reviewer observers at this hook (see hook.reviews); a failure here is logged only."""
        from ...reviewers.handoff import DELIVERY_EVENTS

        try:
            root = loaded.root if where.cwd else None
            if root is None:
                setup = None
            elif self.reviewers is None:
                setup = loaded.review_setup
            else:
                setup = self.reviewers(str(root))
            if setup is None and where.event_name not in DELIVERY_EVENTS:
                return None
            from ...reviewers.handoff import review_at_hook

            answer = review_at_hook(
                self.store, event_name=where.event_name, event=event, project=warm.project,
                session=warm.engine.session, root=root, setup=setup, model_for=self._model_cache(),
                budget=self.review_budget,
            )  # fmt: skip
        except Exception:
            log.error("reviewers at %s failed: %s", where.event_name, traceback.format_exc())
            return None
        if answer.changed:
            warm.unsaved += 1
            self._save(key)
        if answer.context and loaded.config is not None and loaded.config.issues is not None:
            from ...reviewers.issues import file_at_hook  # pattern 5: what reviewers found becomes issues

            try:
                file_at_hook(self.store, loaded.config, warm.project)
            except Exception:  # the answer (and the reports in it) still reaches the agent
                log.error("filing issues failed: %s", traceback.format_exc())
        return answer

    def _model_cache(self) -> Callable[[str], Model]:
        if self._models is None:
            from ...reviewers._run import ModelCache

            self._models = ModelCache(self.models)
        return self._models

    def _context(self, where: HookInput, warm: _Warm, dispatch: Dispatch, reviews: str) -> str:
        parts = [dispatch.feedback] if dispatch.feedback else []
        if reviews:
            parts.append(reviews)
        if where.event_name == "UserPromptSubmit":
            summary = next_turn_observations(
                self.store, project=warm.project, session_id=where.session_key
            )
            if summary:
                parts.append(summary)
        started = dispatch.event
        if (
            isinstance(started, SessionStarted)
            and where.event_name == "SessionStart"
            and warm.remember
        ):
            digest = self._memory(
                session_start_digest,
                self._memories, project=warm.project, session_id=where.session_key,
                source=started.source, settings=warm.memory, now=self.clock.now(),
            )  # fmt: skip
            if digest:
                parts.append(digest)
        return "\n\n".join(parts)

    def _memory(self, step: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """Run a memory step; a failure is logged and costs the agent nothing else."""
        try:
            return step(*args, **kwargs)
        except Exception:
            log.error("memory step %s failed: %s", step.__name__, traceback.format_exc())
            return None

    def _extract_later(self, warm: _Warm, session_id: str, *, final: bool) -> None:
        """Queue the session's memory extraction for the worker, when there is enough to do."""
        if not extraction_due(
            self._memories, project=warm.project, session_id=session_id, final=final
        ):
            return
        payload = extraction_job(warm.project, session_id, final=final, model=warm.memory.model)
        self.store.enqueue(JOB_KIND, payload, project=warm.project, session_id=session_id)
        from ...daemon.worker import ensure_worker

        ensure_worker(self.store.home)

    def _extract_abandoned(self, warm: _Warm, session_id: str) -> None:
        """Queue the final extraction of the project's sessions that ended without a SessionEnd."""
        idle = self._memories.idle_sessions(warm.project, ABANDONED_AFTER)
        others = [
            other
            for other in idle
            if other != session_id and not self.store.jobs.unfinished(JOB_KIND, other)
        ]
        for other in others:
            payload = extraction_job(warm.project, other, final=True, model=warm.memory.model)
            self.store.enqueue(JOB_KIND, payload, project=warm.project, session_id=other)
        if others:
            from ...daemon.worker import ensure_worker

            ensure_worker(self.store.home)

    def _session(self, key: str, where: HookInput, loaded: Loaded) -> _Warm:
        warm = self._warm.get(key)
        if warm is not None:
            self._warm.move_to_end(key)
            return warm
        root = project_root(where.cwd) if where.cwd else None
        project = (root.name or "root") if root is not None else "default"
        session = self.store.load_session(key)
        engine = Engine(loaded.observers, session=session or Session(key), clock=self.clock)
        memory = loaded.memory or self.memory
        warm = _Warm(engine, project, loaded, memory=memory, remember=memory_on(where.cwd, memory))
        self._warm[key] = warm
        if session is None or session[SessionInfo].latest() is None:
            self._start(warm, key, where)
        while len(self._warm) > self.warm_limit:
            self._save(next(iter(self._warm)), forget=True)
        return warm

    def _start(self, warm: _Warm, key: str, where: HookInput) -> None:
        """A session first seen mid-way (or a subagent's): record where it runs and for whom."""
        if where.event_name == "SessionStart":
            return
        subagent = key != where.session_id
        started = SessionStarted(
            at=self.clock.now(),
            source="resume" if not subagent else "startup",
            cwd=where.cwd,
            project=warm.project,
            agent_name=where.agent_id if subagent else "",
            agent_type=where.agent_type,
            parent_session_id=where.session_id if subagent else "",
        )
        started = _with_deadline(started, warm.loaded)
        self.store.record_dispatch(warm.engine.dispatch(started), project=warm.project)

    def _save(self, key: str, *, forget: bool = False) -> None:
        warm = self._warm.get(key)
        if warm is None:
            return
        if warm.unsaved:
            self.store.save_session(warm.engine.session, project=warm.project)
            warm.unsaved = 0
        if forget:
            del self._warm[key]

    def _forget(self, key: str) -> None:
        self._save(key, forget=True)

    def spool(self, raw: bytes, reason: str) -> Path | None:
        """Keep an input that could not be handled, with the reason, for `onlooker doctor`."""
        log.warning("spooled a hook input: %s", reason)
        try:
            folder = self.store.home / SPOOL_DIR
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = folder / f"{time.time_ns()}-{os.getpid()}-{os.urandom(3).hex()}.hook"
            note = reason.replace("\n", " ")[:500]
            path.write_bytes(b"# " + note.encode("utf-8", "replace") + b"\n" + _redacted(raw))
            return path
        except OSError:
            return None


def _with_deadline(event: E, loaded: Loaded) -> E:
    """A session start gets the deadline the project config sets (`trajectory.deadline_minutes`)."""
    if isinstance(event, SessionStarted) and event.deadline is None and loaded.deadline:
        return dataclasses.replace(event, deadline=event.at + loaded.deadline)
    return event


def _redacted(raw: bytes) -> bytes:
    """Spooled input without secrets; bytes that are not UTF-8 pass through as they were."""
    return redact(raw.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
