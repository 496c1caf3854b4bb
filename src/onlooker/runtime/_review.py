"""Reviewers at the runtime's events (specs/reviewers.md): pick the project's reviewers, run or
hand them off, and file the issues their findings call for. A failure here is logged only."""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..config import Loaded
from ..core.events import Event
from ..core.session import Session
from ..store import Store
from ._memory import WakeWorker

if TYPE_CHECKING:
    from ..llm.model import Model
    from ..reviewers.config import ReviewSetup

log = logging.getLogger("onlooker.runtime")


class ReviewSteps:
    """The reviewer work of one runtime, over its store."""

    def __init__(
        self,
        store: Store,
        models: Callable[[str], Model] | None,
        wake_worker: WakeWorker | None,
    ) -> None:
        self.store = store
        self.models = models
        self.wake_worker = wake_worker
        self._models: Callable[[str], Model] | None = None

    def at(
        self,
        event: Event,
        *,
        cwd: str,
        loaded: Loaded,
        project: str,
        session: Session,
        reviewers: Callable[[str], ReviewSetup | None] | None,
        budget: float | None,
        changed: Callable[[], None],
    ) -> tuple[str, str]:
        """Reviewers at this event: (context, block reason). `changed` runs when they changed
        the session, before any issue is filed."""
        from ..reviewers.handoff import delivers_results, review_at

        try:
            root = loaded.root if cwd else None
            if root is None:
                setup = None
            elif reviewers is None:
                setup = loaded.review_setup
            else:
                setup = reviewers(str(root))
            if setup is None and not delivers_results(event):
                return "", ""
            answer = review_at(
                self.store, event=event, project=project, session=session, root=root,
                setup=setup, model_for=self._model_cache(), budget=budget,
                wake_worker=self.wake_worker,
            )  # fmt: skip
        except Exception:
            log.error("reviewers at %s failed: %s", event.kind, traceback.format_exc())
            return "", ""
        if answer.changed:
            changed()
        if answer.context and loaded.config is not None and loaded.config.issues is not None:
            from .issues import file_at_hook  # findings of chosen severities become issues

            try:
                file_at_hook(self.store, loaded.config, project)
            except Exception:  # the answer (and the reports in it) still reaches the agent
                log.error("filing issues failed: %s", traceback.format_exc())
        return answer.context, answer.block

    def _model_cache(self) -> Callable[[str], Model]:
        if self._models is None:
            from ..reviewers._run import ModelCache

            self._models = ModelCache(self.models)
        return self._models
