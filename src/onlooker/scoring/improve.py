"""From repeated weaknesses to reviewed changes (specs/scoring.md).

A weakness seen in `min_observations_for_update` sessions scoring below `scoring_threshold`
becomes a pending improvement: for one agent's prompt file when only that agent (a subagent, or
a named primary agent such as opencode's `plan`) showed it, else for the project's instructions
file. Rejected patterns (matched by similarity) are never
proposed again. Applying adds the improvement's line to its target's managed section through
`onlooker.improvement`, which backs the file up first; the score before is kept, and the next
score of the target's sessions closes the improvement's delta.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import ImprovementError
from ..improvement import (
    AppliedChange,
    InstructionTarget,
    PlannedChange,
    agent_description,
    apply_instructions,
    clean_lines,
    describe_agent,
    managed_lines,
    preview_description,
    preview_instructions,
)
from ..improvement import rollback as roll_back
from ..store.score_records import Improvement, ImprovementTarget, SessionScore
from ._files import agent_target, project_target
from ._scores import AUTO_AGENT_PROMPTS, AUTO_AGENTS_MD, Scores
from .aggregate import patterns, similar
from .material import PRIMARY_NAME
from .settings import ScoringSettings

OPEN = ("pending", "applied")
_WORD = re.compile(r"[a-z0-9_.`/-]+")


@dataclass(frozen=True, slots=True)
class Applied:
    """An improvement written to its file: the record, and the writer's account of the change."""

    improvement: Improvement
    change: AppliedChange


def propose(
    scores: Scores, project: str, settings: ScoringSettings, now: datetime,
    root: Path | None = None,
) -> list[Improvement]:  # fmt: skip
    """Record the improvements the project's scores now call for; the new ones (descriptions of
    subagents only with `root`, where their files are)."""
    low = [s for s in scores.all(project) if s.score < settings.scoring_threshold]
    rejected = scores.rejections(project)
    every = scores.improvements(project)
    known = [i for i in every if i.status in OPEN]
    agents = {s.session_id: s for s in low}
    new: list[Improvement] = []
    for found in patterns((s.session_id, s.card.weaknesses) for s in low):
        if found.count < settings.min_observations_for_update:
            continue
        if any(similar(found.pattern, r) for r in rejected):
            continue
        seen = [agents[i] for i in found.sessions]
        names = {s.agent_name for s in seen}
        # One agent with a prompt of its own: a subagent, or a named primary agent (opencode's
        # build or plan); Claude Code's unnamed main agent reads the instructions file.
        one_subagent = len(names) == 1 and not names & {"", PRIMARY_NAME}
        target: ImprovementTarget = "agent_prompt" if one_subagent else "agents_md"
        agent = next(iter(names)) if one_subagent else ""
        hosts = {s.host for s in seen}
        host = next(iter(hosts)) if one_subagent and len(hosts) == 1 else ""
        text = _suggestion(seen, target, found.pattern)
        if any(
            i.target == target and i.agent_name == agent
            and (similar(i.pattern, found.pattern) or i.text == text)
            for i in [*known, *new]
        ):  # fmt: skip
            continue
        # The same change proposed again (after a rollback the person allowed again, or a
        # rejection taken back) stays one record: its earlier one is reopened.
        earlier = next(
            (
                i for i in every
                if i.target == target and i.agent_name == agent
                and similar(i.pattern, found.pattern)
            ),
            None,
        )  # fmt: skip
        improvement = Improvement(
            id=earlier.id if earlier is not None else os.urandom(8).hex(),
            project=project,
            target=target,
            agent_name=agent,
            pattern=found.pattern,
            text=text,
            reason=f"seen in {found.count} sessions scoring below {settings.scoring_threshold:.0%}",
            created_at=now,
            host=host,
        )
        scores.save(improvement)
        new.append(improvement)
    if root is not None:
        new += _descriptions(scores, project, [*known, *new], rejected, now, root)
    return new


def _descriptions(
    scores: Scores, project: str, known: Sequence[Improvement], rejected: Sequence[str],
    now: datetime, root: Path,
) -> list[Improvement]:  # fmt: skip
    """A subagent's description the judge suggested at its latest score becomes a pending
    improvement of its description, while none of that agent is open and it was not rejected,
    when the agent has a Markdown file of the project (a built-in agent has none: writing one
    would replace it)."""
    latest: dict[str, SessionScore] = {}
    for score in scores.all(project):
        if score.agent_type == "subagent" and score.agent_name:
            latest[score.agent_name] = score
    new = []
    for name, score in latest.items():
        text = score.card.suggested_agent_description_update
        pattern = f"description of agent {name}"
        if not text or any(similar(pattern, r) for r in rejected):
            continue
        if any(i.target == "agent_description" and i.agent_name == name for i in known):
            continue
        file = agent_target(root, name, score.host)
        if file.json_path is not None or not file.path.is_file():
            continue
        improvement = Improvement(
            id=os.urandom(8).hex(), project=project, target="agent_description",
            agent_name=name, pattern=pattern, text=text, host=score.host, created_at=now,
            reason=f"what {name} was asked in session {score.session_id} does not fit its "
            "description",
        )  # fmt: skip
        scores.save(improvement)
        new.append(improvement)
    return new


def pending(scores: Scores, project: str) -> list[Improvement]:
    """The pending improvements, oldest first (the numbering of `accept N` and `reject N`)."""
    return [i for i in scores.improvements(project) if i.status == "pending"]


def auto_applies(
    improvement: Improvement, settings: ScoringSettings, toggles: dict[str, str]
) -> bool:
    """Whether an improvement is applied without asking (config, or the project's toggle); an
    agent's description never is: it changes when the parent delegates to the agent."""
    if improvement.target == "agent_description":
        return False
    if improvement.target == "agents_md":
        return toggles.get(AUTO_AGENTS_MD, "on" if settings.auto_update_agents_md else "") == "on"
    return (
        toggles.get(AUTO_AGENT_PROMPTS, "on" if settings.auto_update_agent_prompts else "") == "on"
    )


def preview(improvement: Improvement, *, root: Path, settings: ScoringSettings) -> PlannedChange:
    """What applying the improvement would change now (nothing is written)."""
    target = target_of(improvement, root, settings)
    if improvement.target == "agent_description":
        return preview_description(target, improvement.text)
    return preview_instructions(target, [improvement.text], section=settings.section)


def apply(
    scores: Scores,
    improvement: Improvement,
    *,
    root: Path,
    settings: ScoringSettings,
    now: datetime,
) -> Applied:
    """Add the improvement's line to its target's managed section (backed up first). A line the
    section already holds changes nothing: the improvement is `present`, not applied, so no
    later rollback is taken for its undoing."""
    target = target_of(improvement, root, settings)
    if improvement.target == "agent_description":
        change = describe_agent(
            target, improvement.text, backup_max_versions=settings.backup_max_versions
        )
    else:
        change = apply_instructions(
            target, [improvement.text], section=settings.section,
            backup_max_versions=settings.backup_max_versions, reason="pre-improvement",
        )  # fmt: skip
    if not change.changed:
        done = dataclasses.replace(improvement, status="present", path=str(change.path))
        scores.save(done)
        return Applied(done, change)
    relevant = _relevant(scores.all(improvement.project), improvement)
    before = sum(s.score for s in relevant) / len(relevant) if relevant else None
    done = dataclasses.replace(
        improvement,
        status="applied",
        applied_at=now,
        score_before=round(before, 4) if before is not None else None,
        path=str(change.path),
        backup_path=str(change.backup or ""),
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
    suggest_again: bool = False,
    force: bool = False,
) -> tuple[AppliedChange, list[Improvement]]:
    """Restore the target's previous version (`steps` back; what it holds now is backed up
    first; lines edited by hand since are kept, specs/improvement.md); the improvements it took
    out: those whose line the section held before and no longer holds. A rollback rejects their
    weakness (never proposed again) unless `suggest_again`."""
    probe = probe_for(project, agent_name)
    target = target_of(probe, root, settings)
    before = _held(target, settings)
    change = roll_back(
        target, steps, backup_max_versions=settings.backup_max_versions, force=force,
        section=settings.section,
    )  # fmt: skip
    gone = before - _held(target, settings)
    undone = [
        i
        for i in scores.improvements(project)
        if i.status == "applied" and _same_target(i, probe) and _held_as(i) in gone
    ]
    rejected = scores.rejections(project)
    for improvement in undone:
        scores.save(
            dataclasses.replace(
                improvement, status="rolled_back", rolled_back_at=scores.store.clock.now()
            )
        )
        if not suggest_again and not any(similar(improvement.pattern, r) for r in rejected):
            scores.reject(project, improvement.pattern)
    return change, undone


def reconcile(scores: Scores, project: str, root: Path, settings: ScoringSettings) -> None:
    """Mark `removed` the applied improvements whose line their file no longer holds (taken out
    by hand): `history` lists no applied line that is not in the file."""
    for improvement in scores.improvements(project):
        if improvement.status != "applied":
            continue
        try:
            held = _held(target_of(improvement, root, settings), settings)
        except ImprovementError:
            continue
        if _held_as(improvement) not in held:
            scores.save(dataclasses.replace(improvement, status="removed"))


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


def target_of(improvement: Improvement, root: Path, settings: ScoringSettings) -> InstructionTarget:
    """The file an improvement changes."""
    if improvement.target == "agents_md":
        return project_target(root, settings)
    return agent_target(root, improvement.agent_name, improvement.host)


def probe_for(project: str, agent_name: str = "") -> Improvement:
    """An improvement standing for a target: the agent's prompt, or the instructions file."""
    return Improvement(
        id="", project=project, target="agent_prompt" if agent_name else "agents_md",
        pattern="", text="", agent_name=agent_name,
    )  # fmt: skip


def _same_target(a: Improvement, b: Improvement) -> bool:
    """The same file: the instructions file, or one agent's (its prompt and its description)."""
    if a.target == "agents_md" or b.target == "agents_md":
        return a.target == b.target
    return a.agent_name == b.agent_name


def _held(target: InstructionTarget, settings: ScoringSettings) -> set[str]:
    """What a file holds of improvements: its managed lines, and its description."""
    held = set(managed_lines(target, settings.section))
    if target.kind == "agent_prompt" and target.json_path is None:
        held.add(f"description: {agent_description(target)}")
    return held


def _held_as(improvement: Improvement) -> str:
    if improvement.target == "agent_description":
        return f"description: {' '.join(improvement.text.split())}"
    return _line(improvement.text)


def _relevant(scores: Sequence[SessionScore], improvement: Improvement) -> list[SessionScore]:
    if improvement.target == "agents_md":
        return list(scores)
    return [s for s in scores if s.agent_name == improvement.agent_name]


def _suggestion(seen: Sequence[SessionScore], target: str, pattern: str) -> str:
    """The judge's own suggested line from the latest session showing the weakness, preferring the
    one for this target, when it answers this weakness: the judge gives one suggestion a session,
    so it belongs to the session's weakness it is closest to (one suggestion per weakness). Else
    the weakness itself as a line to watch."""
    for score in sorted(seen, key=lambda s: s.card.timestamp, reverse=True):
        card = score.card
        first, second = (
            (card.suggested_agents_md_update, card.suggested_agent_prompt_update)
            if target == "agents_md"
            else (card.suggested_agent_prompt_update, card.suggested_agents_md_update)
        )
        for line in (first, second):
            if line and similar(_answered(line, card.weaknesses), pattern):
                return str(line)
    return f"Avoid this recurring weakness: {pattern}"


def _answered(line: str, weaknesses: Sequence[str]) -> str:
    """The weakness of a card a suggested line answers: the one sharing most words with it (the
    first on a tie)."""
    if not weaknesses:
        return ""
    return max(weaknesses, key=lambda w: (_overlap(line, w), -weaknesses.index(w)))


def _overlap(a: str, b: str) -> int:
    return len(set(_WORD.findall(a.lower())) & set(_WORD.findall(b.lower())))


def _line(text: str) -> str:
    cleaned = clean_lines([text])
    return cleaned[0] if cleaned else ""
