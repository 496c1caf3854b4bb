"""The `side_effect.run` job: the side effects a tool call set off, run off the agent's path.

The hook queues one job per tool call with its due rules (the call as journaled, redacted); the
worker runs each rule once: its replay key (session, tool call id, rule) is claimed in the archive
before the work and recorded in the journal after it, so a replayed event or a retried job does
nothing twice. A rule that fails gives its key back and fails the job, to be retried; the others
are done and stay done.
"""

from __future__ import annotations

import logging
import traceback
from pathlib import Path
from typing import Any

from ..core.events import ToolCall
from ..core.records import decode_record, encode
from ..errors import SideEffectError
from ..store import SideEffectSaved, Store
from ..store._jobs import Job
from ..store._store import JobContext
from ..text.redact import redact
from ._rules import Limits, Rule, SideEffectSettings
from .actions import EffectContext
from .archive import Archive, Written
from .registry import find_action

JOB_KIND = "side_effect.run"

log = logging.getLogger("onlooker.side_effects")
log.addHandler(logging.NullHandler())


def job_payload(
    call: ToolCall,
    rules: tuple[Rule, ...],
    settings: SideEffectSettings,
    *,
    session_id: str,
    project_root: Path,
    home: Path,
) -> dict[str, Any]:
    """What the worker needs to run `rules` for `call`, without reading the config again."""
    return {
        "call": encode(call),
        "rules": [rule.to_dict() for rule in rules],
        "session_id": session_id,
        "project_root": str(project_root),
        "archive": str(settings.archive_root(home)),
        "limits": settings.limits.to_dict(),
    }


def handle(job: Job, ctx: JobContext) -> None:
    run_side_effects(ctx.store, job.project, job.payload)


def replay_key(session_id: str, call: ToolCall, rule: Rule) -> str:
    return f"{session_id}:{call.call_id or call.at.isoformat()}:{rule.label}"


def run_side_effects(store: Store, project: str, payload: dict[str, Any]) -> list[SideEffectSaved]:
    """Run each rule of the payload not done before; what they saved, as recorded."""
    call = decode_record(payload["call"])
    if not isinstance(call, ToolCall):
        raise SideEffectError(f"a side-effect job holds a {call.kind}, not a tool call")
    session_id = str(payload["session_id"])
    archive = Archive(
        Path(payload["archive"]), project, session_id, Limits(**payload.get("limits", {}))
    )
    root = Path(payload["project_root"])
    recorded: list[SideEffectSaved] = []
    failures: list[str] = []
    for rule in (Rule.from_dict(r) for r in payload["rules"]):
        key = replay_key(session_id, call, rule)
        if store.effects.done(key) or not archive.claim(key):
            continue
        try:
            written = _run(rule, call, EffectContext(rule, archive, root, project, session_id))
        except Exception as exc:
            archive.release(key)
            log.error("side effect %s failed: %s", rule.label, traceback.format_exc())
            failures.append(f"{rule.label}: {type(exc).__name__}: {exc}")
            continue
        changes = [
            SideEffectSaved(
                key=key,
                project=project,
                session_id=session_id,
                action=rule.action,
                tool=call.tool,
                call_id=call.call_id,
                path=w.path,
                source=redact(w.source),
                sha256=w.sha256,
                size=w.size,
                note=w.note,
            )
            for w in written or [Written("", "", 0, note="nothing to save")]
        ]
        store.record_changes(changes, project=project, session_id=session_id)
        recorded.extend(changes)
    if failures:
        raise SideEffectError("; ".join(failures))
    return recorded


def _run(rule: Rule, call: ToolCall, ctx: EffectContext) -> list[Written]:
    action = find_action(rule.action)
    if action is None:
        raise SideEffectError(f"no side effect called {rule.action!r}")
    result = action(call, ctx)
    if result is None:
        return []
    if isinstance(result, Written):
        return [result]
    return list(result)
