"""The Runtime: a host's event in, feedback to deliver out, with everything in between done once:
warm sessions, dispatch, recording, checkpoints, memory, reviewers and what to say when.

Sessions stay warm in memory (least recently used first out); a cold one is loaded from its
snapshot plus the journal tail, so each event costs the same at call 10 and at call 5,000.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..config import Loaded, ProjectConfigs
from ..core.clock import Clock, SystemClock
from ..core.engine import Dispatch, Engine
from ..core.events import (
    Event,
    SessionEnded,
    SessionStarted,
    SubagentStopped,
    ToolCall,
    TurnEnded,
    UserPrompt,
)
from ..core.feedback import Told
from ..core.session import Session, SessionInfo
from ..memory.settings import MemorySettings, memory_on
from ..store import Store
from ..text.encodable import encodable
from ..text.redact import redact_record
from ._arrival import Arrival, Delivery, joined, subagent_session_id
from ._effects import EffectSteps
from ._memory import MemorySteps, WakeWorker
from ._review import ReviewSteps
from ._scoring import ScoringSteps
from ._warm import Warm, project_name, seen, with_deadline
from .config_notice import config_notice
from .continuity import continued_observations
from .next_turn import next_turn_observations
from .recording import recorded_feedback

if TYPE_CHECKING:
    from ..llm.model import Model
    from ..reviewers.config import ReviewSetup

E = TypeVar("E", bound=Event)
T = TypeVar("T")

log = logging.getLogger("onlooker.runtime")
log.addHandler(logging.NullHandler())

#: Warm sessions kept in memory.
WARM_SESSIONS = 64
#: Save a session's snapshot at least this often (events); the journal covers the rest.
SNAPSHOT_EVERY = 25
#: Events after which a session's snapshot is saved at once.
CHECKPOINTS = (TurnEnded, SessionEnded, SubagentStopped)

EngineFor = Callable[[str, "Session | None", Loaded, Arrival], Engine]
"""(session key, its saved session or None, the project's config, the arrival) -> its engine."""


@dataclass
class Runtime:
    """Turns arrivals into deliveries for every session of one host process.

    Arrivals of different sessions may be handled at once from several threads; a session's
    own arrivals (its subagents' included) must come one at a time, as the hook service's lanes
    and the SDK adapter's lock see to.
    """

    store: Store | None = None
    """Where events, findings, sessions and memory are kept; None keeps nothing (a plain loop)."""
    clock: Clock = field(default_factory=SystemClock)
    configs: ProjectConfigs | None = None
    """Project configs by working directory; default: read them when there is a store."""
    engine_for: EngineFor | None = None
    """Builds a session's engine; default: the project config's observers."""
    project: str | None = None
    """The store's project for every session; default: the name of the session's project root."""
    reviewers: Callable[[str], ReviewSetup | None] | None = None
    """Project root -> its reviewers and execution (None: none); default: the project config's."""
    models: Callable[[str], Model] | None = None
    """Model string -> Model for reviewers; default `onlooker.llm.model_from_string`, cached."""
    review_budget: float | None = None
    """Seconds parallel reviewers may take at one event (a hook's time limit)."""
    memory: MemorySettings = field(default_factory=MemorySettings)
    """Memory settings of projects whose config does not set them."""
    wake_worker: WakeWorker | None = None
    """Makes sure a worker runs queued jobs (memory extraction, background reviewers)."""
    warm_limit: int = WARM_SESSIONS
    host: str = ""
    """The host adapter this runtime serves, named on the start of a session first seen mid-way
    when the arrival names none (specs/serve.md, hosts)."""

    def __post_init__(self) -> None:
        self._warm: OrderedDict[str, Warm] = OrderedDict()
        self._lock = threading.Lock()
        """Guards the warm sessions and the config cache, never held while a session works."""
        self._memory = MemorySteps(self.store, self.wake_worker) if self.store else None
        self._scoring = ScoringSteps(self.store, self.wake_worker) if self.store else None
        self._effects = EffectSteps(self.store, self.wake_worker) if self.store else None
        self._reviews = (
            ReviewSteps(self.store, self.models, self.wake_worker) if self.store else None
        )
        if self.configs is None and self.store is not None:
            self.configs = ProjectConfigs()

    @classmethod
    def around(cls, engine: Engine) -> Runtime:
        """A runtime whose every session runs on `engine`, keeping nothing (a plain loop's)."""
        return cls(clock=engine.clock, engine_for=lambda key, saved, loaded, arrival: engine)

    # -- the step every host takes ----------------------------------------------------------------

    def handle(self, arrival: Arrival) -> Delivery:
        """Record `arrival`, run the due observers, say what to deliver. Store failures raise."""
        arrival = encodable(arrival)  # every host's input, once: no text that cannot be stored
        warm, event, start = self._begin(arrival)
        try:
            if seen(warm, event):
                return Delivery()
            if start is not None:
                self._recorded(warm, warm.engine.dispatch(start))
            return self._finish(arrival, warm, warm.engine.dispatch(event))
        except BaseException:
            self._drop(arrival.session_key, warm)
            raise
        finally:
            self._done(warm)

    async def ahandle(self, arrival: Arrival) -> Delivery:
        """`handle` inside an event loop: async observers run concurrently. Callers serialize."""
        arrival = encodable(arrival)
        warm, event, start = self._begin(arrival)
        try:
            if seen(warm, event):
                return Delivery()
            if start is not None:
                self._recorded(warm, await warm.engine.adispatch(start))
            return self._finish(arrival, warm, await warm.engine.adispatch(event))
        except BaseException:
            self._drop(arrival.session_key, warm)
            raise
        finally:
            self._done(warm)

    def review_setup(self, cwd: str) -> ReviewSetup | None:
        """The reviewers of the project `cwd` belongs to (None: none, or no folder)."""
        if self.configs is None or not cwd:
            return None
        with self._lock:
            loaded = self.configs.lookup(cwd)
        return self.reviewers(str(loaded.root)) if self.reviewers else loaded.review_setup

    def engine(self, session_key: str) -> Engine | None:
        """The engine of a warm session (a subagent's until it stops)."""
        with self._lock:
            warm = self._warm.get(session_key)
        return warm.engine if warm is not None else None

    def close(self) -> None:
        """Save every warm session (a host calls this before it exits)."""
        with self._lock:
            keys = list(self._warm)
        for key in keys:
            self._save(key)
        with self._lock:
            self._warm.clear()

    # -- the work ---------------------------------------------------------------------------------

    def _begin(self, arrival: Arrival) -> tuple[Warm, Event, SessionStarted | None]:
        key = arrival.session_key
        loaded = self._loaded(arrival)
        warm, start = self._session(key, arrival, loaded)
        try:
            if warm.loaded is not loaded:  # the config file changed: same session, new observers
                warm.engine = self._engine_for(key, warm.engine.session, loaded, arrival)
                warm.loaded = loaded
                warm.memory = loaded.memory or self.memory
            if self._memory is not None:  # opt-outs are live: decided at every arrival
                warm.remember = self._memory.turned_on(warm.memory, loaded.root, arrival.cwd)
                self._step(self._memory.note_opt_out, warm.remember, project=warm.project,
                           session_id=arrival.session_id)  # fmt: skip
            return warm, with_deadline(redact_record(arrival.event), loaded), start
        except BaseException:
            self._done(warm)
            raise

    def _finish(self, arrival: Arrival, warm: Warm, dispatch: Dispatch) -> Delivery:
        key, event = arrival.session_key, dispatch.event
        feedback = self._recorded(warm, dispatch)
        main = key == arrival.session_id
        if warm.remember and self._memory is not None:
            if isinstance(event, ToolCall):
                self._step(self._memory.capture, event, project=warm.project,
                           session_id=arrival.session_id, root=str(warm.loaded.root))  # fmt: skip
            if main and isinstance(event, TurnEnded | SessionEnded):
                self._step(self._memory.extract_later, warm.memory, project=warm.project,
                           session_id=key, final=isinstance(event, SessionEnded))  # fmt: skip
            if main and isinstance(arrival.event, SessionStarted):
                self._step(self._memory.extract_abandoned, warm.memory, project=warm.project,
                           session_id=key)  # fmt: skip
        block = self._effects_at(key, arrival, warm, event)
        warm.unsaved += 1
        if isinstance(event, CHECKPOINTS) or warm.unsaved >= SNAPSHOT_EVERY:
            self._save(key)
        context, reviewed = self._review(key, arrival, warm, event)
        block = joined(reviewed, block)
        if isinstance(event, SessionEnded):
            self._save(key, forget=True)
        if isinstance(event, SubagentStopped):
            self._save(subagent_session_id(arrival.session_id, event.agent_id), forget=True)
        parts = [warm.held, feedback, context, self._next_turn(key, warm, event)]
        if isinstance(arrival.event, SessionStarted) and warm.remember and self._memory:
            parts.append(
                self._step(
                    self._memory.digest,
                    event,
                    warm.memory,
                    project=warm.project,
                    session_id=key,
                    now=self.clock.now(),
                )
                or ""
            )
        notice = ""
        if self._scoring is not None and arrival.cwd:
            notice = self._scored(arrival, warm, event, parts)
        told = self._step(config_notice, warm.engine.session, warm.loaded, event) or ""
        if told:
            warm.unsaved += 1
            notice = joined(told, notice)
        text = joined(*parts)
        if not arrival.deliverable:
            warm.held, text = text, ""
        else:
            warm.held = ""
        if (text or block) and self.store is not None:
            said = redact_record(
                Told(session_id=key, at=event.at, seq=event.seq, text=text, block=block)
            )
            self._step(self.store.append, [said], project=warm.project, session_id=key)
        return Delivery(text, block, dispatch, notice)

    def _scored(self, arrival: Arrival, warm: Warm, event: Event, parts: list[str]) -> str:
        """Queue a score when something ended; the compaction context into `parts`; the notice."""
        assert self._scoring is not None
        steps, project = self._scoring, warm.project
        root = warm.loaded.root
        self._step(steps.score_later, arrival, event, warm.loaded.scoring, project=project,
                   root=root)  # fmt: skip
        parts.append(self._step(steps.after_compaction, event, project=project) or "")
        return self._step(steps.notice, arrival, event, project=project) or ""

    def _recorded(self, warm: Warm, dispatch: Dispatch) -> str:
        """Record the dispatch; its feedback, with the stored findings' ids."""
        if self.store is None:
            return dispatch.feedback
        engine = warm.engine
        return recorded_feedback(self.store, dispatch, project=warm.project,
                                 session=engine.session, limit=engine.feedback_limit)  # fmt: skip

    def _next_turn(self, key: str, warm: Warm, event: Event) -> str:
        """At a prompt: the open-findings summary when it changed since the session last saw it;
        after compaction and on resume: the session's open observations again (continuity)."""
        if self.store is not None and isinstance(event, SessionStarted):
            return self._step(continued_observations, self.store, event, project=warm.project,
                              session_id=key) or ""  # fmt: skip
        if self.store is None or not isinstance(event, UserPrompt):
            return ""
        return next_turn_observations(self.store, project=warm.project, session_id=key)

    def _review(self, key: str, arrival: Arrival, warm: Warm, event: Event) -> tuple[str, str]:
        """Reviewers at this event: (context, block reason); a failure here is logged only."""
        if self._reviews is None:
            return "", ""

        def changed() -> None:
            warm.unsaved += 1
            self._save(key)

        return self._reviews.at(
            event, cwd=arrival.cwd, loaded=warm.loaded, project=warm.project,
            session=warm.engine.session, reviewers=self.reviewers, budget=self.review_budget,
            changed=changed,
        )  # fmt: skip

    def _effects_at(self, key: str, arrival: Arrival, warm: Warm, event: Event) -> str:
        """Queue a tool call's side effects; at a stop, the compliance verifier's block reason."""
        config = warm.loaded.config
        if self._effects is None or config is None or not arrival.cwd:
            return ""
        reason = self._step(
            self._effects.at, event, config, main=key == arrival.session_id,
            session_id=arrival.session_id, session=warm.engine.session, project=warm.project,
            root=warm.loaded.root, engine=self.engine,
        )  # fmt: skip
        return reason or ""

    def _step(self, step: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """Run a memory, side-effect or compliance step; a failure is logged and costs the agent
        nothing else."""
        try:
            return step(*args, **kwargs)
        except Exception:
            log.error("step %s failed: %s", step.__name__, traceback.format_exc())
            return None

    # -- sessions ---------------------------------------------------------------------------------

    def _loaded(self, arrival: Arrival) -> Loaded:
        if self.configs is None:
            return _NO_CONFIG
        with self._lock:
            return self.configs.lookup(arrival.cwd)

    def _done(self, warm: Warm) -> None:
        with self._lock:
            warm.busy -= 1

    def _drop(self, key: str, warm: Warm) -> None:
        """Forget a session, unsaved, after its step failed: it may hold what its journal does
        not, so its next event loads it again from its snapshot and journal (specs/session.md).
        Without a store, memory is all there is: it is kept."""
        with self._lock:
            if self.store is not None and self._warm.get(key) is warm:
                del self._warm[key]

    def _engine_for(
        self, key: str, saved: Session | None, loaded: Loaded, arrival: Arrival
    ) -> Engine:
        if self.engine_for is not None:
            engine = self.engine_for(key, saved, loaded, arrival)
        else:
            engine = Engine(loaded.observers, session=saved or Session(key), clock=self.clock)
        return engine

    def _session(
        self, key: str, arrival: Arrival, loaded: Loaded
    ) -> tuple[Warm, SessionStarted | None]:
        """The warm session for `key`, and the start to record first when it is new here."""
        with self._lock:
            warm = self._warm.get(key)
            if warm is not None:
                self._warm.move_to_end(key)
                warm.busy += 1
                return warm, None
        saved = self.store.load_session(key) if self.store is not None else None
        engine = self._engine_for(key, saved, loaded, arrival)
        shared = self.store.shared if self.store is not None else False
        project = self.project or project_name(loaded, arrival, shared)
        if self.store is not None and engine.findings is None:
            engine.findings = self.store.findings_for(project)
        memory = loaded.memory or self.memory
        warm = Warm(engine, project, loaded, memory, memory_on(arrival.cwd, memory), busy=1)
        with self._lock:
            self._warm[key] = warm
            idle = [k for k, w in self._warm.items() if not w.busy]
            evicted = idle[: max(0, len(self._warm) - self.warm_limit)]
        for old in evicted:
            self._save(old, forget=True)
        start = None
        if engine.session[SessionInfo].latest() is None:
            start = self._start(warm, key, arrival, loaded)
        return warm, start

    def _start(
        self, warm: Warm, key: str, arrival: Arrival, loaded: Loaded
    ) -> SessionStarted | None:
        """A session first seen mid-way (or a subagent's): where it runs and for whom."""
        if isinstance(arrival.event, SessionStarted) or not (arrival.cwd or self.store):
            return None
        subagent = key != arrival.session_id
        started = SessionStarted(
            session_id=key,
            at=self.clock.now(),
            source="resume" if not subagent else "startup",
            cwd=arrival.cwd,
            project=warm.project,
            agent_name=arrival.agent_id if subagent else "",
            agent_type=arrival.agent_type,
            parent_session_id=arrival.session_id if subagent else "",
            host=arrival.host or self.host,
        )
        return with_deadline(started, loaded)

    def _save(self, key: str, *, forget: bool = False) -> None:
        with self._lock:
            warm = self._warm.get(key)
            if warm is not None and forget:
                del self._warm[key]
        if warm is None:
            return
        if warm.unsaved and self.store is not None:
            self.store.save_session(warm.engine.session, project=warm.project)
            warm.unsaved = 0


_NO_CONFIG = Loaded(Path("."), None, None)
