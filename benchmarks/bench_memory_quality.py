"""Memory quality with no model, on a labeled set: recorded Claude Code sessions and the facts a
person would keep from each (tests/fixtures/memory-quality/labels.json). Each session is replayed
through capture and the rule digest (its own project), then the next session's digest is taken
as SessionStart injects it (the default budget: 20 memories, 500 tokens) and scored:

- recall: labeled facts held by one line of the digest (every string of the fact in that line);
- contradictions: command lines whose state disagrees with the session's own last run of that
  command, and commands told of twice (target 0);
- junk: lines with no letter, repeated lines, lines that report a run the user declined or the
  host blocked as the command's outcome (target 0).
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from onlooker.core.events import SessionStarted, ToolCall
from onlooker.hosts.recorded.transcripts import read_transcript
from onlooker.memory import MemorySettings, session_start_digest
from onlooker.memory._memories import Memories
from onlooker.memory.compress import compress
from onlooker.memory.digest import NOT_RUN, CommandState
from onlooker.store import Store

from .bench_memory import replay
from .measure import Result

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "tests" / "fixtures" / "memory-quality" / "labels.json"
TARGET_RECALL = 0.75
_RAN = re.compile(r"^Ran `(.+)` → exit (-?\d+)(?:: (.*))?$")
_LINE = re.compile(r"^- `(.+)`: (.*)$")
_LETTER = re.compile(r"[^\W\d_]")


@dataclass
class Score:
    facts: int = 0
    kept: int = 0
    contradictions: list[str] = field(default_factory=list)
    junk: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)


def score() -> Score:
    labels: dict[str, list[list[str]]] = json.loads(LABELS.read_text())["sessions"]
    total = Score()
    with tempfile.TemporaryDirectory() as home, Store(home) as store:
        for number, (name, facts) in enumerate(labels.items()):
            path, project = ROOT / name, f"labeled-{number}"
            replay(store, path, None, project=project)
            lines = _digest(store, path, project)
            _score(total, name, facts, lines, _truth(path))
    return total


def _digest(store: Store, path: Path, project: str) -> list[str]:
    last = max(e.at for s in read_transcript(path).sessions() for e in s.events)
    text = session_start_digest(
        Memories(store), project=project, session_id="next", source="startup",
        settings=MemorySettings(), now=last + timedelta(hours=1),
    )  # fmt: skip
    return [line for line in text.splitlines() if line.startswith("- ")]


def _truth(path: Path) -> dict[str, bool]:
    """Each command's last run in the session (that ran): True when it passed."""
    events = [e for s in read_transcript(path).sessions() for e in s.events]
    root = next((e.cwd for e in events if isinstance(e, SessionStarted)), "")
    last: dict[str, bool] = {}
    for event in sorted(events, key=lambda e: (e.at, e.seq)):
        said = compress(event, root) if isinstance(event, ToolCall) else None
        ran = _RAN.match(said.line) if said else None
        if ran and not (ran.group(3) or "").startswith(NOT_RUN):
            last[ran.group(1)] = ran.group(2) == "0"
    return last


def _score(
    total: Score, name: str, facts: list[list[str]], lines: list[str], truth: dict[str, bool]
) -> None:
    total.facts += len(facts)
    for fact in facts:
        if any(all(part in line for part in fact) for line in lines):
            total.kept += 1
        else:
            total.missed.append(f"{Path(name).name}: {' + '.join(fact)}")
    told: dict[str, int] = {}
    for line in lines:
        if not _LETTER.search(line) or lines.count(line) > 1 or any(n in line for n in NOT_RUN):
            total.junk.append(line)
        found = _LINE.match(line)
        state = CommandState.read(found.group(1), found.group(2)) if found else None
        if found is None or state is None:
            continue
        command = found.group(1)
        told[command] = told.get(command, 0) + 1
        if told[command] > 1 or truth.get(command, state.last_ok) != state.last_ok:
            total.contradictions.append(line)


def run() -> list[Result]:
    found = score()
    recall = found.kept / found.facts if found.facts else 0.0
    sessions = len(json.loads(LABELS.read_text())["sessions"])
    return [
        Result(
            "recall of labeled facts",
            f"{recall:.2f}",
            f"{found.kept} of {found.facts} facts in {sessions} labeled sessions, no model "
            f"(target ≥ {TARGET_RECALL:g}); missed: {'; '.join(found.missed) or 'none'}",
            recall >= TARGET_RECALL,
        ),
        Result(
            "contradictions",
            f"{len(found.contradictions)}",
            "; ".join(found.contradictions) or "target 0",
            not found.contradictions,
        ),
        Result(
            "junk lines", f"{len(found.junk)}", "; ".join(found.junk) or "target 0", not found.junk
        ),
    ]


if __name__ == "__main__":
    for result in run():
        print(f"  {result.name}  {result.value}  {result.note}")
