"""The LLM reviewer observer: one model call over the watched content, findings out.

`ReviewObserver.review` asks the model with the reviewer prompt and a bounded JSON schema, within
the reviewer's timeout, and returns a ReviewOutcome (findings, ids it found resolved, usage, status)
instead of raising: a timeout, an unreachable provider or unusable output is recorded as data. As
an `Observer`, `observe(ctx)` reviews the session's watched targets and returns an Assessment.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..core.assessment import Assessment, Finding, Severity
from ..core.observer import ObserverContext
from ..core.triggers import Trigger
from ..errors import InvalidOutput, ModelError, ModelTimeout, ObserverTimeout
from ..llm.model import Message, Model, Usage
from ._material import review_material
from ._prompt import MAX_TOKENS, OUTPUT_SCHEMA, parse_observer_result, review_messages
from .config import ReviewerConfig
from .watch import ConversationTarget, FilesTarget

OutcomeStatus = Literal["ok", "timeout", "error"]
DEFAULT_TRIGGER = Trigger.on("turn_ended")
"""Reviewers run by default when the agent ends its response (the response:complete hook)."""


@dataclass(frozen=True, slots=True)
class ReviewOutcome:
    """One review: what it found, what it found resolved, what it cost, how it ended."""

    observer: str
    status: OutcomeStatus
    findings: tuple[Finding, ...] = ()
    resolved: tuple[str, ...] = ()
    """Ids of the reviewer's own open findings that it reports fixed."""
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    duration: float = 0.0

    def assessment(self) -> Assessment | None:
        """The outcome as an Assessment for the agent (None when there is nothing to say)."""
        if not self.findings and not self.resolved:
            return None
        worst: Severity = min((f.severity for f in self.findings), key=_RANK.index, default="info")
        parts = [f"{len(self.findings)} new observation{'s' * (len(self.findings) != 1)}"]
        if self.resolved:
            parts.append(f"{len(self.resolved)} resolved")
        return Assessment(
            observer_name=self.observer,
            summary=f"{self.observer} review: {', '.join(parts)}.",
            findings=self.findings,
            severity=worst,
        )


_RANK = ["critical", "high", "medium", "low", "info"]


@dataclass
class ReviewObserver:
    """A reviewer from its ReviewerConfig; `model` overrides the context's model."""

    config: ReviewerConfig
    model: Model | None = None
    trigger: Trigger = DEFAULT_TRIGGER

    @property
    def name(self) -> str:
        return self.config.name

    def should_run(self, ctx: ObserverContext) -> bool:
        return self.config.enabled

    async def observe(self, ctx: ObserverContext) -> Assessment | None:
        root = Path(ctx.project_root) if ctx.project_root is not None else None
        content = review_material(self.config.watch, root, ctx.session)
        outcome = await self.review(content, ctx.findings, model=ctx.model)
        if outcome.status == "timeout":
            raise ObserverTimeout(outcome.error or "the model did not answer in time")
        if outcome.status == "error" and not outcome.findings:
            raise ModelError(outcome.error or "the review failed")
        return outcome.assessment()

    def messages(self, content: str, open_findings: Sequence[Finding] = ()) -> list[Message]:
        return review_messages(self.config, content, open_findings)

    async def review(
        self,
        content: str,
        open_findings: Sequence[Finding] = (),
        *,
        model: Model | None = None,
        timeout: float | None = None,
    ) -> ReviewOutcome:
        """Ask the model about `content`; never raises for a model failure."""
        chosen = model or self.model
        name = self.config.name
        if chosen is None:
            return ReviewOutcome(name, "error", error=f"no model for reviewer {name!r}")
        limit = min(self.config.timeout, timeout) if timeout is not None else self.config.timeout
        started = time.monotonic()
        messages = self.messages(content, open_findings)
        status: OutcomeStatus = "ok"
        error: str | None = None
        usage, answered = Usage(), chosen.name
        try:
            completion = await asyncio.wait_for(
                chosen.complete(
                    messages, schema=OUTPUT_SCHEMA, timeout=limit, max_tokens=MAX_TOKENS
                ),
                limit,
            )
            usage, answered = completion.usage, completion.model or chosen.name
            parsed = parse_observer_result(
                completion.data if completion.data is not None else completion.text, name
            )
        except (ModelTimeout, TimeoutError):
            return self._failed("timeout", f"ModelTimeout: no answer within {limit:g}s", started)
        except InvalidOutput as exc:
            status, error = "error", f"InvalidOutput: {exc}"
            parsed = parse_observer_result(exc.text or str(exc), name)
        except ModelError as exc:
            return self._failed("error", f"{type(exc).__name__}: {exc}", started)
        except Exception as exc:  # a provider bug must not reach the agent either
            return self._failed("error", f"{type(exc).__name__}: {exc}", started)
        if status == "ok" and any(o["metadata"].get("parse_error") for o in parsed["observations"]):
            status, error = "error", "the answer was not JSON; kept as one info observation"
        return ReviewOutcome(
            observer=name,
            status=status,
            findings=tuple(self._finding(o) for o in parsed["observations"]),
            resolved=_own(parsed.get("resolved", ()), open_findings),
            error=error,
            usage=usage,
            model=answered,
            duration=time.monotonic() - started,
        )

    def _failed(self, status: OutcomeStatus, error: str, started: float) -> ReviewOutcome:
        chosen = self.model.name if self.model is not None else self.config.model
        return ReviewOutcome(
            self.config.name, status, error=error, model=chosen, duration=time.monotonic() - started
        )

    def _finding(self, observation: dict[str, Any]) -> Finding:
        metadata = dict(observation.get("metadata") or {})
        category = str(metadata.pop("category", "") or self.config.metadata.get("category", ""))
        source_type = "unknown" if metadata.get("parse_error") else self._source_type()
        ref = observation.get("source_ref")
        return Finding(
            content=str(observation["content"]),
            severity=observation["severity"],
            observer=self.config.name,
            category=category[:40],
            source_type=source_type,
            source_ref=str(ref)[:200] if ref else None,
            metadata=metadata,
        )

    def _source_type(self) -> str:
        kinds = {type(target) for target in self.config.watch}
        if kinds == {FilesTarget}:
            return "file"
        if kinds == {ConversationTarget}:
            return "conversation"
        return "mixed"


def _own(ids: Sequence[str], open_findings: Sequence[Finding]) -> tuple[str, ...]:
    """The ids among the reviewer's own open findings (a unique prefix of 8+ characters counts);
    any other id is ignored, so reviewed content cannot resolve someone else's finding."""
    mine = [f.id for f in open_findings]
    found: list[str] = []
    for given in ids:
        given = given.strip()
        matches = [i for i in mine if i == given or (len(given) >= 8 and i.startswith(given))]
        if len(matches) == 1 and matches[0] not in found:
            found.append(matches[0])
    return tuple(found)
