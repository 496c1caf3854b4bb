"""What a trajectory Assessment becomes in the store: findings at low severity or above.

An assessment at info, or a status line (deadline, plan progress), is only journaled. At low or
above, each of its findings is stored (one without findings stores its summary, under the id its
message shows); a finding left at `info` takes the assessment's severity: whatever the agent is
told carries an id it can act on.
A finding belongs to its session's episode (`metadata.episode`, else the observer's name): the
episode keeps one finding, whose later reports update it (specs/store.md, Trajectory findings).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from ..core.assessment import Assessment, Finding
from ..core.events import EPOCH
from ..core.message import is_stored, summary_finding
from .changes import EPISODE_REF, content_hash, episode_ref


def trajectory_findings(assessment: Assessment, session_id: str = "") -> list[Finding]:
    """The findings to store for one assessment (source_type conversation, source_ref naming the
    session's episode, so a later report of the episode updates the same finding)."""
    if assessment.status or not is_stored(assessment.severity):
        return []
    metadata: dict[str, Any] = {"call_index": assessment.call_index}
    if assessment.suggestions:
        metadata["suggestions"] = list(assessment.suggestions)
    created = assessment.timestamp if assessment.timestamp != EPOCH else None
    found = assessment.findings or (summary_finding(assessment),)
    stored = []
    for finding in found:
        level = assessment.severity if finding.severity == "info" else finding.severity
        episode = str(
            finding.metadata.get("episode") or finding.observer or assessment.observer_name
        )
        stored.append(
            dataclasses.replace(
                finding,
                observer=finding.observer or assessment.observer_name,
                severity=level,
                source_type="conversation",
                source_ref=episode_ref(session_id, episode),
                session_id=session_id,
                created_at=created,
                metadata={**metadata, **finding.metadata},
            )
        )
    return [f for f in stored if is_stored(f.severity)]


def kept_findings(findings: Iterable[Finding]) -> list[tuple[Finding, int]]:
    """What the store keeps of `findings` stored in this order while none is resolved, with how
    often each was reported: one finding per identity (`content_hash`); an episode's takes its
    newest report's severity, text, evidence and metadata, and keeps its first id and time
    (`Store.create`, specs/store.md)."""
    kept: dict[str, tuple[Finding, int]] = {}
    for finding in findings:
        key = content_hash(finding)
        first, seen = kept.get(key, (finding, 0))
        if seen and (finding.source_ref or "").startswith(EPISODE_REF):
            first = dataclasses.replace(
                first, severity=finding.severity, content=finding.content,
                evidence=finding.evidence or first.evidence, metadata=finding.metadata,
            )  # fmt: skip
        kept[key] = (first, seen + 1)
    return list(kept.values())
