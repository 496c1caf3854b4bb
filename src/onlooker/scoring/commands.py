"""The observer commands (specs/scoring.md), one function each, shared by the command line
(`onlooker observer …`), the MCP tools (`observer_*`) and Claude Code's slash commands: each
answers with text for a person and the same facts as data (`--json`, structured tool output).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.events import Event
from ..errors import ScoringError
from ..improvement import AppliedChange, history
from ..llm.model import Model
from ..store import Journal, Store
from ..store.score_records import Improvement
from ._applying import applied_shown, preview_shown
from ._rows import (
    card_text,
    failure_line,
    failure_row,
    improvement_row,
    label,
    score_row,
)
from ._scores import AUTO_AGENT_PROMPTS, AUTO_AGENTS_MD, STEERING, Scores, ScoringFailure
from .aggregate import aggregate, improvement_deltas, percent, similar, sparkline, trend_arrow
from .improve import apply, pending, preview, probe_for, propose, reconcile, rollback, target_of
from .material import facts
from .run import score_session
from .settings import HOW_TO_TURN_ON, ScoringSettings

HELP = """onlooker observer — session scores and instruction improvements

  status [agent]          aggregate stats, top weaknesses, recent sessions, trend, deltas
  score [agent|session]   score the current session, show an agent's latest, or score a session
  suggest [agent]         pending improvements (rejected patterns left out)
  apply                   show what the next pending improvement changes; apply it if confirmed
  accept N                the same for pending improvement N (--yes: without asking)
  rollback [agent]        restore the previous AGENTS.md (or the agent's prompt)
  history [agent]         every score with its breakdown, and each improvement's delta
  config                  the scoring settings, toggles and guidance
  auto [prompts] on|off   apply improvements without asking (AGENTS.md, or agent prompts)
  steer [text|reset]      guidance the judge reads; no text shows it, reset clears it
  reject N|pattern        reject an improvement; its weakness is never suggested again
  rejections              the rejected patterns
  unreject pattern        take a rejection back
  help                    this list

Scores: instruction_following, completeness, proactiveness, code_quality, communication (0-1).
🟢 80% and above · 🟡 60% and above · 🔴 below 60%"""

LATEST_CANDIDATES = 20
"""Journals (the most recently written) searched for the project's newest session."""

EventsFor = Callable[[str], "Sequence[Event] | None"]
"""A session id -> its events from a transcript (a session the journals do not hold)."""


@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class ObserverCommands:
    """The observer commands for one project."""

    store: Store
    project: str
    root: Path
    settings: ScoringSettings
    model_for: Callable[[str], Model] | None = None
    events_for: EventsFor | None = None

    def __post_init__(self) -> None:
        self.scores = Scores(self.store)

    # -- reading ----------------------------------------------------------------------------------

    def status(self, agent: str = "") -> Answer:
        found = self.scores.all(self.project, agent or None)
        failures = self._failures(agent)
        summary = aggregate(found)
        values = [s.score for s in found]
        mine = [
            i for i in self.scores.improvements(self.project) if not agent or i.agent_name == agent
        ]
        deltas = improvement_deltas(mine)
        recent = [score_row(s) for s in found[-5:]][::-1]
        data: dict[str, Any] = {
            "project": self.project,
            "scoring": self.settings.active,
            "aggregate": summary.to_dict(),
            "trend": {"sparkline": sparkline(values), "arrow": trend_arrow(values)},
            "recent": recent,
            "improvements": deltas.to_dict(),
            "pending": len([i for i in mine if i.status == "pending"]),
            "failed": [failure_row(f) for f in failures],
        }
        lines = [] if self.settings.active else [HOW_TO_TURN_ON, ""]
        who = f" — agent {agent}" if agent else ""
        lines.append(
            f"Observer{who}: {summary.total_sessions} sessions, average "
            f"{percent(summary.avg_score)}  {sparkline(values)} {trend_arrow(values)}"
        )
        lines += [f"  weakness ×{p.count}: {p.pattern}" for p in summary.top_weaknesses]
        for name, one in summary.by_agent.items():
            lines.append(f"  agent {name}: {one.total_sessions} sessions, {percent(one.avg_score)}")
        if deltas.measured:
            lines.append(
                f"  improvements: average delta {deltas.avg_delta:+.1%}, {deltas.helped} helped, "
                f"{deltas.hurt} hurt"
            )
        lines += [f"  {r['session_id']}: {percent(r['score'])} {r['title']}" for r in recent]
        lines += [failure_line(f) for f in failures[:5]]
        if data["pending"]:
            lines.append(f"{data['pending']} improvement(s) pending: `onlooker observer suggest`.")
        return Answer("\n".join(lines), data)

    def history(self, agent: str = "") -> Answer:
        reconcile(self.scores, self.project, self.root, self.settings)
        found = self.scores.all(self.project, agent or None)
        improvements = [
            i for i in self.scores.improvements(self.project) if not agent or i.agent_name == agent
        ]
        failures = self._failures(agent)
        data = {
            "sessions": [score_row(s, full=True) for s in found],
            "improvements": [improvement_row(i) for i in improvements],
            "failed": [failure_row(f) for f in failures],
        }
        lines = [f"{len(found)} scored sessions"]
        for s in found:
            c = s.card.categories
            lines.append(
                f"  {s.session_id} [{s.agent_name or '-'}] {percent(s.score)}  "
                f"if {c.instruction_following:.2f} co {c.completeness:.2f} "
                f"pr {c.proactiveness:.2f} cq {c.code_quality:.2f} cm {c.communication:.2f}"
            )
        for i in improvements:
            delta = (
                f" [score {i.outcome_score_delta:+.1%}]"
                if i.outcome_score_delta is not None
                else ""
            )
            lines.append(f"  improvement {i.status}: {i.text} (weakness: {i.pattern}){delta}")
        lines += [failure_line(f) for f in failures]
        return Answer("\n".join(lines), data)

    def config(self) -> Answer:
        toggles = self.scores.settings(self.project)
        data: dict[str, Any] = {
            "settings": self.settings.to_dict(),
            "active": self.settings.active,
            "auto_update_agents_md": _toggle(
                toggles, AUTO_AGENTS_MD, self.settings.auto_update_agents_md
            ),
            "auto_update_agent_prompts": _toggle(
                toggles, AUTO_AGENT_PROMPTS, self.settings.auto_update_agent_prompts
            ),
            "guidance": toggles.get(STEERING, ""),
        }
        lines = [f"{k}: {v}" for k, v in data["settings"].items()]
        lines += [f"auto (AGENTS.md): {'on' if data['auto_update_agents_md'] else 'off'}"]
        lines += [f"auto (agent prompts): {'on' if data['auto_update_agent_prompts'] else 'off'}"]
        lines += [f"guidance: {data['guidance'] or '(none)'}"]
        if not self.settings.active:
            lines.insert(0, HOW_TO_TURN_ON)
        return Answer("\n".join(lines), data)

    def help(self) -> Answer:
        return Answer(HELP, {"help": HELP})

    def suggest(self, agent: str = "") -> Answer:
        propose(self.scores, self.project, self.settings, self.store.clock.now(), root=self.root)
        waiting = [
            i for i in pending(self.scores, self.project) if not agent or i.agent_name == agent
        ]
        lines = [
            f"{n}. [{label(i)}] {i.text}\n   for weakness: {i.pattern} ({i.reason})"
            for n, i in enumerate(waiting, 1)
        ]
        if not lines:
            lines = ["No pending improvements."]
        return Answer("\n".join(lines), {"pending": [improvement_row(i) for i in waiting]})

    # -- scoring ----------------------------------------------------------------------------------

    def score(self, which: str = "") -> Answer:
        """An agent name shows its latest score; a session id is scored now, and with none the
        newest session of this project is."""
        agents = {s.agent_name for s in self.scores.all(self.project)}
        if which and which in agents:
            return self.agent_score(which)
        if not self.settings.active or self.model_for is None:
            raise ScoringError(HOW_TO_TURN_ON)
        session_id = which or self._latest_session()
        events = None
        if not self._journaled(session_id):
            events = self.events_for(session_id) if self.events_for is not None else None
            if events is None:
                known = sorted(agents - {""})
                raise ScoringError(
                    f"no session {session_id!r} in the journals or transcripts, and no scored "
                    f"agent of that name (scored agents: {', '.join(known) or 'none yet'})"
                )
        done = score_session(
            self.store, self.model_for(self.settings.model), project=self.project,
            session_id=session_id, root=self.root, settings=self.settings, events=events,
        )  # fmt: skip
        if done.failed:
            raise ScoringError(done.notices[0].removeprefix("onlooker: "))
        if done.score is None:
            raise ScoringError(done.skipped)
        text = "\n".join([card_text(done.score), *done.notices[1:]])
        return Answer(
            text, {"score": score_row(done.score, full=True), "notices": list(done.notices)}
        )

    def agent_score(self, agent: str) -> Answer:
        """The latest score of `agent`'s sessions (nothing is scored)."""
        found = self.scores.all(self.project, agent)
        if not found:
            known = sorted({s.agent_name for s in self.scores.all(self.project)})
            raise ScoringError(
                f"no scores for agent {agent!r} in project {self.project!r}; scored agents: "
                f"{', '.join(known) or '(none yet)'}"
            )
        return Answer(card_text(found[-1]), {"score": score_row(found[-1], full=True)})

    # -- improving --------------------------------------------------------------------------------

    def apply(self) -> Answer:
        return self.accept(1)

    def preview(self, number: int = 1) -> Answer:
        """What `accept(number)` would change now; nothing is written (the CLI shows it and asks
        before applying)."""
        chosen = self._pending(number)
        planned = preview(chosen, root=self.root, settings=self.settings)
        return Answer(*preview_shown(number, chosen, planned))

    def accept(self, number: int, expected: str = "") -> Answer:
        """Apply pending improvement `number`; with `expected` (an improvement id, as a preview
        showed it), only when that is still the one numbered so."""
        chosen = self._pending(number)
        if expected and chosen.id != expected:
            raise ScoringError(
                f"the pending improvements changed since they were shown: improvement {number} "
                "is now another one; nothing was applied (`onlooker observer suggest` lists them)"
            )
        done = apply(
            self.scores, chosen, root=self.root, settings=self.settings,
            now=self.store.clock.now(),
        )  # fmt: skip
        change = done.change
        return Answer(*applied_shown(
            chosen, done.improvement, str(change.path), change.section, change.lines,
            str(change.backup or ""), change.changed,
        ))  # fmt: skip

    def rollback(
        self, agent: str = "", steps: int = 1, *, suggest_again: bool = False, force: bool = False
    ) -> Answer:
        """Undo the last change; its weakness is rejected (never suggested again) unless
        `suggest_again`. A hand edit made since is kept, or the rollback refused (`force`)."""
        change, undone = rollback(
            self.scores, self.project, root=self.root, settings=self.settings, agent_name=agent,
            steps=steps, suggest_again=suggest_again, force=force,
        )  # fmt: skip
        what = f"{agent} prompt" if agent else "AGENTS.md"
        lines = [f"{what} rolled back ({change.path}); backup of what it held: {change.backup}"]
        lines += [f"  - {i.text}  (weakness: {i.pattern})" for i in undone]
        if undone and not suggest_again:
            lines.append(
                "  Not suggested again; `onlooker observer unreject PATTERN` allows it again."
            )
        return Answer(
            "\n".join(lines),
            {
                "rolled_back": [improvement_row(i) for i in undone],
                "path": str(change.path),
                "backup": str(change.backup or ""),
                "rejected": [] if suggest_again else [i.pattern for i in undone],
            },
        )

    def backups(self, agent: str = "") -> list[AppliedChange]:
        """The changes to the instructions file (or the agent's prompt) whose backups are kept."""
        return history(target_of(probe_for(self.project, agent), self.root, self.settings))

    def auto(self, value: str, prompts: bool = False) -> Answer:
        if value not in ("on", "off"):
            raise ScoringError(f"auto takes on or off, not {value!r}")
        name = AUTO_AGENT_PROMPTS if prompts else AUTO_AGENTS_MD
        self.scores.set(self.project, name, value)
        what = "agent prompts" if prompts else "AGENTS.md"
        return Answer(f"Automatic updates of {what}: {value}.", {name: value == "on"})

    def steer(self, text: str = "") -> Answer:
        if text.strip().lower() == "reset":
            self.scores.set(self.project, STEERING, "")
            return Answer("Guidance cleared.", {"guidance": ""})
        if text.strip():
            self.scores.set(self.project, STEERING, text.strip())
        current = self.scores.settings(self.project).get(STEERING, "")
        return Answer(f"Guidance: {current or '(none)'}", {"guidance": current})

    def reject(self, which: str) -> Answer:
        """Reject pending improvement N, or a weakness pattern."""
        if which.strip().isdigit():
            chosen = self._pending(int(which))
            pattern = chosen.pattern
        else:
            pattern = which.strip()
            if not pattern:
                raise ScoringError("reject needs an improvement number or a weakness pattern")
        self.scores.reject(self.project, pattern)
        for improvement in pending(self.scores, self.project):
            if similar(improvement.pattern, pattern):
                self.scores.save(dataclasses.replace(improvement, status="rejected"))
        return Answer(f"Rejected: {pattern}", {"rejected": pattern})

    def rejections(self) -> Answer:
        found = self.scores.rejections(self.project)
        text = "\n".join(f"- {p}" for p in found) or "No rejected patterns."
        return Answer(text, {"rejections": found})

    def unreject(self, pattern: str) -> Answer:
        found = [p for p in self.scores.rejections(self.project) if similar(p, pattern)]
        if not found:
            raise ScoringError(f"no rejected pattern matches {pattern!r}")
        for p in found:
            self.scores.reject(self.project, p, rejected=False)
        return Answer(f"Restored: {'; '.join(found)}", {"restored": found})

    # -- internals --------------------------------------------------------------------------------

    def _pending(self, number: int) -> Improvement:
        waiting = pending(self.scores, self.project)
        if not waiting:
            raise ScoringError("no pending improvements (`onlooker observer suggest` looks again)")
        if not 1 <= number <= len(waiting):
            raise ScoringError(
                f"improvement {number} does not exist: 1 to {len(waiting)} are pending"
            )
        return waiting[number - 1]

    def _failures(self, agent: str) -> list[ScoringFailure]:
        """Failed scorings not since retried with success (of the agent's sessions when given)."""
        found = self.scores.failures(self.project)
        if not agent:
            return found
        names = {s.session_id: s.agent_name for s in self.scores.all(self.project)}
        return [f for f in found if names.get(f.session_id) == agent]

    def _journaled(self, session_id: str) -> bool:
        return self.store.journal(self.project, session_id).path.exists()

    def _latest_session(self) -> str:
        """The project's newest main session: of its most recently written journals, the one
        whose latest event is newest (a score written into an older journal does not count)."""
        folder = self.store.journal(self.project, "x").path.parent
        journals = sorted(
            (p for p in folder.glob("*.jsonl") if not p.name.startswith("_")),
            key=lambda p: p.stat().st_mtime, reverse=True,
        )[:LATEST_CANDIDATES]  # fmt: skip
        newest: tuple[Any, str] | None = None
        for path in journals:
            events = [
                e.record for e in Journal(path, path.name).read().entries
                if isinstance(e.record, Event) and e.record.session_id
            ]  # fmt: skip
            main = [e for e in events if "/" not in e.session_id]
            about = facts(main[-1].session_id, main) if main else None
            if about is not None and (about.own_commands_only or not about.title):
                continue  # `/onlooker:score` run headless is a session of its own: not it
            if main and (newest is None or main[-1].at > newest[0]):
                newest = (main[-1].at, main[-1].session_id)
        if newest is None:
            raise ScoringError(f"no recorded session in project {self.project!r}; name one by id")
        return newest[1]


def _toggle(toggles: dict[str, str], name: str, default: bool) -> bool:
    return toggles.get(name, "on" if default else "off") == "on"
