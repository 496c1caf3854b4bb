"""The built-in observers stay quiet on real sessions and speak up on the demo's loop and cascade.

Real Claude Code sessions that ended normally (tests/fixtures/claude-code, see SOURCES.md) are
replayed with their subagents through every built-in observer: at most 1 warning per 500 calls.
"""

from __future__ import annotations

from pathlib import Path

from onlooker.core.assessment import is_warning
from onlooker.hosts.recorded.replay import SessionReplay, replay_paths

TESTS = Path(__file__).parents[1]
REAL = TESTS / "fixtures" / "claude-code"
DEMO = TESTS.parent / "examples" / "transcripts" / "flaky-tests.jsonl"

CALLS_PER_WARNING = 500

#: Real sessions that did not end normally (SOURCES.md says why).
CUT_OFF = {
    "with-attachments.jsonl": "stops after a TaskCreate result",
    "d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl": "its last Bash call never got a result",
}
#: Folders that hold no real sessions: per-message excerpts, a synthetic demo.
NOT_SESSIONS = ("claude-code-log", "agent-log-gif")


def normal_sessions() -> list[Path]:
    """Main transcripts of real sessions that ended normally (subagents come with them)."""
    return sorted(
        path
        for path in REAL.rglob("*.jsonl")
        if "subagents" not in path.parts
        and path.parts[len(REAL.parts)] not in NOT_SESSIONS
        and path.name not in CUT_OFF
    )


def table(replays: list[SessionReplay]) -> str:
    lines = []
    for replay in replays:
        name = str(Path(replay.path).relative_to(REAL))
        warned = [
            f"{a.observer_name}@{a.call_index}"
            for a in replay.assessments
            if is_warning(a.severity)
        ]
        lines.append(f"{name:<80} calls={replay.tool_calls:>4} warnings={replay.warnings} {warned}")
    return "\n".join(lines)


def test_warnings_are_rare_on_real_sessions() -> None:
    replays = list(replay_paths(normal_sessions()))
    calls = sum(r.tool_calls for r in replays)
    warnings = sum(r.warnings for r in replays)
    report = f"{table(replays)}\nall: calls={calls} warnings={warnings}"
    print(report)
    assert sum(1 for r in replays if r.agent_id) >= 13, "the subagents are replayed too"
    assert calls >= 400, report
    assert warnings * CALLS_PER_WARNING <= calls, report
    assert not any(r.failures for r in replays), [r.failures for r in replays if r.failures]


def test_cut_off_real_sessions_are_quiet_too() -> None:
    """Sessions that stopped early are still ordinary work up to where they stop."""
    paths = sorted(p for p in REAL.rglob("*.jsonl") if p.name in CUT_OFF)
    replays = list(replay_paths(paths))
    calls = sum(r.tool_calls for r in replays)
    report = table(replays)
    print(report)
    assert len(replays) == len(CUT_OFF)
    assert sum(r.warnings for r in replays) * CALLS_PER_WARNING <= calls, report


def test_the_demo_loop_and_cascade_are_caught() -> None:
    (replay,) = replay_paths([DEMO])
    warned = [a for a in replay.assessments if is_warning(a.severity)]
    by_observer = {a.observer_name for a in warned}
    assert {"Stall", "Error Cascade"} <= by_observer, table([replay])

    stall = next(a for a in warned if a.observer_name == "Stall")
    assert stall.findings[0].category == "repeated call"
    assert "failed with the same error 4 times" in stall.findings[0].content
    assert any(a.severity == "high" for a in warned if a.observer_name == "Stall")

    categories = {
        f.category for a in warned if a.observer_name == "Error Cascade" for f in a.findings
    }
    assert categories == {"recurring error", "consecutive failures"}
    assert not any(a.observer_name == "Drift" for a in warned)
