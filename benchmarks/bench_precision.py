"""Precision of the rule observers: the labeled trajectories and the real sessions, replayed.

Recall and precision against tests/fixtures/labeled/labels.json, alarms on its clean sessions,
warnings per 500 calls on the real sessions of tests/fixtures/claude-code; see specs/observers.md.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from onlooker.core.assessment import Assessment
from onlooker.hosts.recorded.replay import SessionReplay, replay_paths

from .measure import Result, report

ROOT = Path(__file__).resolve().parent.parent
LABELED = ROOT / "tests" / "fixtures" / "labeled"
REAL = ROOT / "tests" / "fixtures" / "claude-code"
NOT_SESSIONS = ("claude-code-log", "agent-log-gif")
"""Folders under REAL that hold no real sessions: per-message excerpts, a synthetic demo."""
RULE_OBSERVERS = frozenset({"Stall", "Error Cascade", "Drift"})
RECALL_TARGET = 0.95
FAMILY_RECALL_TARGET = 0.9
"""Each observer's own recall on its labels: a family found well does not hide one missed."""
CALLS_PER_WARNING = 500
_CITED = re.compile(r"\b(\d+)(?:-(\d+))?\b")
_TOLD = re.compile(r"\bcalls? \d")


@dataclass(frozen=True, slots=True)
class Label:
    """Where an observer should speak in one trajectory (call numbers of that session)."""

    file: str
    observer: str
    category: str
    first: int
    due: int
    last: int

    def covers(self, alarm: Assessment) -> bool:
        return alarm.observer_name == self.observer and self.first <= alarm.call_index <= self.last

    def met_by(self, alarm: Assessment) -> bool:
        """The alarm is this label's warning, in time."""
        return (
            alarm.observer_name == self.observer
            and self.first <= alarm.call_index <= self.due
            and any(f.category == self.category for f in alarm.findings)
        )


@dataclass(slots=True)
class Score:
    """What the labeled set and the real sessions came to."""

    trajectories: int = 0
    clean: int = 0
    labeled_calls: int = 0
    labels: int = 0
    found: int = 0
    alarms: int = 0
    true_alarms: int = 0
    clean_alarms: int = 0
    uncited: int = 0
    real_sessions: int = 0
    real_calls: int = 0
    real_warnings: int = 0
    real_notes: int = 0
    by_observer: dict[str, list[int]] = field(default_factory=dict)
    """Observer -> [labels found, labels]."""
    details: list[str] = field(default_factory=list)

    def family_recall(self, observer: str) -> float:
        found, labels = self.by_observer.get(observer, [0, 0])
        return found / labels if labels else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.labels if self.labels else 1.0

    @property
    def precision(self) -> float:
        return self.true_alarms / self.alarms if self.alarms else 1.0

    @property
    def warnings_per_500(self) -> float:
        return CALLS_PER_WARNING * self.real_warnings / self.real_calls if self.real_calls else 0.0


def alarms_of(replay: SessionReplay) -> list[Assessment]:
    """What the rule observers told the agent, at any severity."""
    return [a for a in replay.assessments if a.observer_name in RULE_OBSERVERS]


def cites_its_calls(alarm: Assessment) -> bool:
    """Every finding names call numbers of its session, none after the call it was made at, in
    its evidence and in the text the agent reads."""
    for finding in alarm.findings:
        numbers = [
            int(n) for first, last in _CITED.findall(finding.evidence) for n in (first, last) if n
        ]
        if not numbers or not all(1 <= n <= alarm.call_index for n in numbers):
            return False
        if not _TOLD.search(finding.content):
            return False
    return bool(alarm.findings)


def read_labels(folder: Path = LABELED) -> dict[str, list[Label]]:
    data = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    return {
        item["file"]: [Label(item["file"], **expected) for expected in item["expect"]]
        for item in data["trajectories"]
    }


def score_labeled(score: Score, folder: Path = LABELED) -> None:
    labels = read_labels(folder)
    for replay in replay_paths(folder / name for name in labels):
        name = Path(replay.path).name
        expected = labels[name]
        alarms = alarms_of(replay)
        score.trajectories += 1
        score.labeled_calls += replay.tool_calls
        score.labels += len(expected)
        score.alarms += len(alarms)
        score.uncited += sum(1 for a in alarms if not cites_its_calls(a))
        for label in expected:
            tally = score.by_observer.setdefault(label.observer, [0, 0])
            tally[1] += 1
            if any(label.met_by(a) for a in alarms):
                score.found += 1
                tally[0] += 1
            else:
                score.details.append(
                    f"missed   {name}: {label.observer} {label.category} "
                    f"(calls {label.first}..{label.due})"
                )
        if not expected:
            score.clean += 1
            score.clean_alarms += len(alarms)
        for alarm in alarms:
            if any(label.covers(alarm) for label in expected):
                score.true_alarms += 1
            else:
                score.details.append(f"false    {name}@{alarm.call_index}: {describe(alarm)}")


def real_sessions(folder: Path = REAL) -> list[Path]:
    """Main transcripts of the real sessions (their subagents are replayed with them)."""
    return sorted(
        path
        for path in folder.rglob("*.jsonl")
        if "subagents" not in path.parts and path.parts[len(folder.parts)] not in NOT_SESSIONS
    )


def score_real(score: Score, paths: Iterable[Path]) -> None:
    for replay in replay_paths(paths):
        alarms = alarms_of(replay)
        score.real_sessions += 1
        score.real_calls += replay.tool_calls
        score.real_warnings += replay.warnings
        score.real_notes += len(alarms)
        score.uncited += sum(1 for a in alarms if not cites_its_calls(a))
        for alarm in alarms:
            where = Path(replay.path).relative_to(REAL) if replay.path else replay.session_id
            score.details.append(f"real     {where}@{alarm.call_index}: {describe(alarm)}")


def describe(alarm: Assessment) -> str:
    finding = alarm.findings[0] if alarm.findings else None
    what = f"{finding.category}: {finding.content}" if finding else alarm.summary
    return f"{alarm.observer_name} [{alarm.severity}] {what[:140]}"


def measure() -> Score:
    score = Score()
    score_labeled(score)
    score_real(score, real_sessions())
    return score


def run() -> list[Result]:
    return figures(measure())


def figures(s: Score) -> list[Result]:
    warned = s.trajectories - s.clean
    per_500 = s.warnings_per_500
    return [
        Result(
            "labeled trajectories",
            f"{s.trajectories}",
            f"{warned} with {s.labels} expected warnings, {s.clean} clean; {s.labeled_calls} calls",
        ),
        Result(
            "recall",
            f"{s.recall:.2f}",
            f"{s.found}/{s.labels} in time; target >= {RECALL_TARGET}",
            ok=s.recall >= RECALL_TARGET,
        ),
        Result(
            "recall by observer",
            f"{min(s.family_recall(o) for o in s.by_observer) if s.by_observer else 1.0:.2f}",
            ", ".join(
                f"{o} {found}/{labels}" for o, (found, labels) in sorted(s.by_observer.items())
            )
            + f"; the lowest, target >= {FAMILY_RECALL_TARGET}",
            ok=all(s.family_recall(o) >= FAMILY_RECALL_TARGET for o in s.by_observer),
        ),
        Result("precision", f"{s.precision:.2f}", f"{s.true_alarms}/{s.alarms} alarms where due"),
        Result(
            "clean-session false alarms",
            f"{s.clean_alarms}",
            f"over {s.clean} clean trajectories, any severity; target 0",
            ok=s.clean_alarms == 0,
        ),
        Result(
            "real: warnings per 500 calls",
            f"{per_500:.2f}",
            f"{s.real_warnings} warnings, {s.real_notes} notes in {s.real_calls} calls "
            f"({s.real_sessions} sessions and subagents); target <= 1",
            ok=s.real_warnings * CALLS_PER_WARNING <= s.real_calls,
        ),
        Result(
            "alarms not citing their calls",
            f"{s.uncited}",
            "labeled and real; target 0",
            ok=s.uncited == 0,
        ),
    ]


def main(argv: list[str]) -> int:
    """Print the figures; with `--details`, every miss, false alarm and real-session alarm."""
    score = measure()
    code = report(figures(score))
    if "--details" in argv:
        for line in score.details:
            print(line)
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
