"""The rule observers say only what is true: labeled trajectories replayed through `onlooker replay`.

Cancelled parallel calls are not failures, a falling failure count is progress, a narrow task
left behind is drift; the labeled set meets its targets and its generator reproduces it.
"""

from __future__ import annotations

import filecmp
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).parents[1]
ROOT = TESTS.parent
LABELED = TESTS / "fixtures" / "labeled"
ONLOOKER = str(Path(sys.executable).with_name("onlooker"))


def replay(name: str) -> dict[str, Any]:
    """The real CLI's `--json` account of one labeled session."""
    done = subprocess.run(
        [ONLOOKER, "replay", str(LABELED / f"{name}.jsonl"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (session,) = json.loads(done.stdout)
    return dict(session)


def said(session: dict[str, Any], observer: str) -> list[tuple[int, str, str]]:
    """(call, severity, first finding) of each assessment `observer` made."""
    return [
        (a["call_index"], a["severity"], a["findings"][0]["content"] if a["findings"] else "")
        for a in session["assessments"]
        if a["observer"] == observer
    ]


def test_parallel_calls_cancelled_by_a_failing_sibling_are_not_failures() -> None:
    session = replay("parallel-cancellations")
    cancelled = [i for i in session["injections"] if "Sibling tool call errored" in i["text"]]
    assert said(session, "Error Cascade") == [], session["injections"]
    assert said(session, "Stall") == []
    assert cancelled == []
    assert said(replay("parallel-checks-cancelled"), "Error Cascade") == []


def test_a_real_cascade_in_parallel_batches_is_still_caught() -> None:
    """The cancelled siblings neither count nor break the streak of the agent's own failures."""
    found = said(replay("cascade-through-parallel"), "Error Cascade")
    assert found, "the cascade was missed"
    call, severity, content = found[0]
    assert (call, severity) == (8, "medium")
    assert content.startswith("The last 4 tool calls that ran failed (calls 1, 4, 5, 8)")


def test_a_falling_failure_count_is_progress() -> None:
    for name in ("progress-pytest", "progress-mypy"):
        session = replay(name)
        assert said(session, "Error Cascade") == [], name
        assert said(session, "Stall") == [], name


def test_a_count_that_stops_falling_is_a_loop_again() -> None:
    session = replay("progress-then-stuck")
    cascade = said(session, "Error Cascade")
    assert [(call, severity) for call, severity, _ in cascade] == [(11, "medium")]
    assert "4 times (calls 5, 7, 9, 11)" in cascade[0][2]
    assert [(call, severity) for call, severity, _ in said(session, "Stall")] == [(11, "medium")]


def test_drift_after_a_narrow_task_is_noted_within_about_ten_calls() -> None:
    for name, first in (("drift-typo-to-payments", 4), ("drift-typo-to-infra", 3)):
        drift = said(replay(name), "Drift")
        assert drift, f"{name}: drift was missed"
        call, severity, content = drift[0]
        assert first + 7 <= call <= first + 11, (name, drift)
        assert severity == "low"
        assert "docs/setup.md" in content or "README.md" in content


def test_narrow_tasks_that_stay_or_are_widened_by_the_user_are_quiet() -> None:
    for name in ("typo-stays-narrow", "typo-then-asked-for-payments", "follow-the-cause"):
        assert said(replay(name), "Drift") == [], name


def test_the_labeled_set_meets_its_targets() -> None:
    code = "from benchmarks.bench_precision import main; raise SystemExit(main(['--details']))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    print(done.stdout)
    assert done.stderr == ""
    figures = {line[2:].split("  ")[0]: line for line in done.stdout.splitlines()[:7]}
    assert list(figures) == [
        "labeled trajectories",
        "recall",
        "recall by observer",
        "precision",
        "clean-session false alarms",
        "real: warnings per 500 calls",
        "alarms not citing their calls",
    ]
    assert done.returncode == 0, done.stdout
    assert int(figures["labeled trajectories"].split()[2]) >= 20


def test_the_generator_reproduces_the_labeled_set(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(LABELED / "make_labeled.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted([*(p.name for p in LABELED.glob("*.jsonl")), "labels.json"])
    _, mismatch, errors = filecmp.cmpfiles(LABELED, tmp_path, written, shallow=False)
    assert (mismatch, errors) == ([], [])
