"""From repeated weaknesses to reviewed changes (specs/scoring.md).

A weakness seen in `min_observations_for_update` sessions scoring below `scoring_threshold`
becomes a pending improvement: for one subagent's prompt file when only that subagent showed it,
else for the project's instructions file. Rejected patterns (matched by similarity) are never
proposed again. Applying writes every applied line of the target into its managed section through
the file writer, which backs the file up first; the score before is kept, and the next score of
the target's sessions closes the improvement's delta.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..store.score_records import Improvement, ImprovementTarget, SessionScore
from ._files import InstructionFiles, agent_prompt_path, instruction_files
from ._scores import AUTO_AGENT_PROMPTS, AUTO_AGENTS_MD, Scores
from .aggregate import patterns, similar
from .settings import ScoringSettings

OPEN = ("pending", "applied")


@dataclass(frozen=True, slots=True)
class Applied:
    """An improvement written to its file: the record, and the writer's account of the change."""

    improvement: Improvement
    change: Any


def propose(
    scores: Scores, project: str, settings: ScoringSettings, now: datetime
) -> list[Improvement]:
    """Record the improvements the project's scores now call for; the new ones."""
    low = [s for s in scores.all(project) if s.score < settings.scoring_threshold]
    if not low:
        return []
    rejected = scores.rejections(project)
    known = [i for i in scores.improvements(project) if i.status in OPEN]
    agents = {s.session_id: s for s in low}
    new: list[Improvement] = []
    for found in patterns((s.session_id, s.card.weaknesses) for s in low):
        if found.count < settings.min_observations_for_update:
            continue
        if any(similar(found.pattern, r) for r in rejected):
            continue
        seen = [agents[i] for i in found.sessions]
        names = {s.agent_name for s in seen}
        one_subagent = len(names) == 1 and all(s.agent_type == "subagent" for s in seen)
        target: ImprovementTarget = "agent_prompt" if one_subagent else "agents_md"
        agent = next(iter(names)) if one_subagent else ""
        if any(
            i.target == target and i.agent_name == agent and similar(i.pattern, found.pattern)
            for i in [*known, *new]
        ):
            continue
        improvement = Improvement(
            id=os.urandom(8).hex(),
            project=project,
            target=target,
            agent_name=agent,
            pattern=found.pattern,
            text=_suggestion(seen, target, found.pattern),
            reason=f"seen in {found.count} sessions scoring below {settings.scoring_threshold:.0%}",
            created_at=now,
        )
        scores.save(improvement)
        new.append(improvement)
    return new


def pending(scores: Scores, project: str) -> list[Improvement]:
    """The pending improvements, oldest first (the numbering of `accept N` and `reject N`)."""
    return [i for i in scores.improvements(project) if i.status == "pending"]


def auto_applies(
    improvement: Improvement, settings: ScoringSettings, toggles: dict[str, str]
) -> bool:
    """Whether an improvement is applied without asking (config, or the project's toggle)."""
    if improvement.target == "agents_md":
        return toggles.get(AUTO_AGENTS_MD, "on" if settings.auto_update_agents_md else "") == "on"
    return (
        toggles.get(AUTO_AGENT_PROMPTS, "on" if settings.auto_update_agent_prompts else "") == "on"
    )


def apply(
    scores: Scores,
    improvement: Improvement,
    *,
    root: Path,
    settings: ScoringSettings,
    now: datetime,
    files: InstructionFiles | None = None,
) -> Applied:
    """Write the improvement (with the target's other applied lines) into its managed section."""
    files = files or instruction_files()
    applied = [
        i
        for i in scores.improvements(improvement.project)
        if i.status == "applied" and _same_target(i, improvement)
    ]
    lines = list(dict.fromkeys([*(i.text for i in applied), improvement.text]))
    change = files.apply(target_of(files, improvement, root, settings), lines, settings.section)
    relevant = _relevant(scores.all(improvement.project), improvement)
    before = sum(s.score for s in relevant) / len(relevant) if relevant else None
    done = dataclasses.replace(
        improvement,
        status="applied",
        applied_at=now,
        score_before=round(before, 4) if before is not None else None,
        path=str(getattr(change, "path", "") or ""),
        backup_path=str(getattr(change, "backup", "") or ""),
    )
    scores.save(done)
    return Applied(done, change)


def rollback(
    scores: Scores,
    project: str,
    *,
    root: Path,
    settings: ScoringSettings,
    agent_name: str = "",
    steps: int = 1,
    files: InstructionFiles | None = None,
) -> tuple[Any, list[Improvement]]:
    """Restore the target's previous version (`steps` back); the improvements it took out."""
    files = files or instruction_files()
    probe = Improvement(
        id="", project=project, target="agent_prompt" if agent_name else "agents_md",
        pattern="", text="", agent_name=agent_name,
    )  # fmt: skip
    change = files.rollback(target_of(files, probe, root, settings), steps)
    applied = [
        i for i in scores.improvements(project) if i.status == "applied" and _same_target(i, probe)
    ]
    undone = sorted(applied, key=lambda i: i.applied_at or i.created_at)[-steps:]
    for improvement in undone:
        scores.save(dataclasses.replace(improvement, status="rolled_back"))
    return change, undone


def close_deltas(scores: Scores, latest: SessionScore) -> list[Improvement]:
    """Give applied improvements their outcome delta at the first score of theirs after them."""
    closed = []
    when = datetime.fromtimestamp(latest.card.timestamp / 1000).astimezone()
    for improvement in scores.improvements(latest.project):
        if improvement.status != "applied" or improvement.outcome_score_delta is not None:
            continue
        if improvement.score_before is None or improvement.applied_at is None:
            continue
        if improvement.applied_at > when or not _relevant([latest], improvement):
            continue
        delta = round(latest.score - improvement.score_before, 4)
        done = dataclasses.replace(improvement, outcome_score_delta=delta)
        scores.save(done)
        closed.append(done)
    return closed


def target_of(
    files: InstructionFiles, improvement: Improvement, root: Path, settings: ScoringSettings
) -> Any:
    if improvement.target == "agents_md":
        return files.project_target(root, settings.instructions_file or None)
    found = agent_prompt_path(root, improvement.agent_name)
    return files.agent_target(root, improvement.agent_name, found[1] if found else "claude_code")


def _same_target(a: Improvement, b: Improvement) -> bool:
    return a.target == b.target and (a.target == "agents_md" or a.agent_name == b.agent_name)


def _relevant(scores: Sequence[SessionScore], improvement: Improvement) -> list[SessionScore]:
    if improvement.target == "agents_md":
        return list(scores)
    return [s for s in scores if s.agent_name == improvement.agent_name]


def _suggestion(seen: Sequence[SessionScore], target: str, pattern: str) -> str:
    """The judge's own suggested line from the latest session showing the weakness, preferring the
    one for this target; else the weakness as a line to watch."""
    for score in sorted(seen, key=lambda s: s.card.timestamp, reverse=True):
        card = score.card
        first, second = (
            (card.suggested_agents_md_update, card.suggested_agent_prompt_update)
            if target == "agents_md"
            else (card.suggested_agent_prompt_update, card.suggested_agents_md_update)
        )
        if first or second:
            return str(first or second)
    return f"Avoid this recurring weakness: {pattern}"
