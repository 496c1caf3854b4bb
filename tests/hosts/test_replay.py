"""Replay: observers run over recorded sessions as if live, on the transcript's own clock."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from onlooker import Assessment, ObserverContext, ToolCall, Trigger, observer
from onlooker.core.assessment import is_warning
from onlooker.core.message import INTRODUCTION
from onlooker.errors import ConfigError
from onlooker.hosts.recorded.replay import (
    observers_named,
    replay_paths,
    replay_session,
    replay_transcript,
)
from onlooker.hosts.recorded.transcripts import read_transcript, transcript_paths

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "transcripts" / "flaky-tests.jsonl"
SESSION_ID = "0b6d1d0e-7f55-4a3e-9a51-3c1f1d2b8e11"

#: Real sessions that ended normally (SOURCES.md): warnings must stay under 1 per 500 calls.
ENDED_NORMALLY = (
    "cctx-cli/with-compaction/with-compaction.jsonl",
    "sniffly/-Users-chip-dev-ai-music/ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
    "fasthooks/specs/data/sample_main_transcript.jsonl",
)


@pytest.fixture
def session_file(fixtures: Path) -> Path:
    return fixtures / "transcripts" / f"{SESSION_ID}.jsonl"


@observer(name="Bash Watcher", trigger=Trigger(tools=("Bash",)))
def bash_watcher(ctx: ObserverContext) -> Assessment:
    call = ctx.session[ToolCall].latest()
    assert call is not None
    return Assessment(summary=f"Bash ran: {call.input.get('command')}", severity="medium")


@observer(name="Broken", trigger=Trigger(every_n_calls=1))
def broken(ctx: ObserverContext) -> None:
    raise RuntimeError("observer bug")


@observer(name="Minute Ticker", trigger=Trigger(every_n_seconds=60))
def minute_ticker(ctx: ObserverContext) -> Assessment:
    return Assessment(summary=f"It is {ctx.clock.now():%H:%M:%S}.")


def test_each_session_and_subagent_is_replayed_on_its_own(session_file: Path) -> None:
    results = replay_transcript(read_transcript(session_file), lambda: [bash_watcher])
    assert [r.session_id for r in results] == [
        SESSION_ID,
        f"{SESSION_ID}-agent-a1b2c3d",
        f"{SESSION_ID}-agent-a9e8f7d",
    ]
    parent, explore, _ = results
    assert (parent.tool_calls, explore.tool_calls) == (5, 1)
    assert explore.parent_session_id == SESSION_ID and explore.agent_type == "Explore"
    assert (parent.malformed, parent.malformed_lines, parent.unanswered) == (3, (13, 14, 15), 1)


def test_what_would_have_been_injected_is_kept_per_tool_call(session_file: Path) -> None:
    (parent, *_) = replay_transcript(read_transcript(session_file), lambda: [bash_watcher])
    (injection,) = parent.injections
    assert (injection.call_index, injection.tool, injection.event_kind) == (4, "Bash", "tool_call")
    assert injection.at == datetime(2026, 2, 12, 16, 0, 17, 900000, tzinfo=UTC)
    # medium: stored by a host with a store, so it carries an id; the first says how to use it
    head, _, rest = injection.text.partition(" [id ")
    assert head == (
        "[Trajectory Assessment - Bash Watcher]\n\nBash ran: python -m pytest tests/test_cli.py -q"
    )
    assert rest[8:] == "]\n\n" + INTRODUCTION
    (assessment,) = parent.assessments
    assert (assessment.call_index, assessment.severity) == (4, "medium")
    assert parent.warnings == 1


def test_the_clock_follows_the_transcript(session_file: Path) -> None:
    parent = replay_session(read_transcript(session_file), lambda: [minute_ticker])
    # the session spans 16:00:00–16:00:55: the ticker runs once, at the first event
    assert [a.summary for a in parent.assessments] == ["It is 16:00:00."]
    demo = replay_session(read_transcript(DEMO), lambda: [minute_ticker])
    times = [a.timestamp for a in demo.assessments]
    assert len(times) > 10
    assert all((b - a).total_seconds() >= 60 for a, b in itertools.pairwise(times))


def test_an_observer_that_raises_is_a_failure_not_a_crash(session_file: Path) -> None:
    parent = replay_session(read_transcript(session_file), lambda: [broken, bash_watcher])
    assert len(parent.failures) == parent.tool_calls == 5  # every_n_calls=1: once a call
    assert parent.failures[0].observer == "Broken"
    assert "observer bug" in parent.failures[0].error
    assert len(parent.assessments) == 1


def test_a_deadline_counts_from_the_session_start() -> None:
    transcript = read_transcript(DEMO)
    without = replay_session(transcript, observers_named(["deadline"]))
    assert without.assessments == ()
    with_deadline = replay_session(transcript, observers_named(["deadline"]), deadline_minutes=20)
    summaries = [a.summary for a in with_deadline.assessments]
    assert summaries[0].endswith("minutes remaining (51% of the time used).")
    assert all(a.status for a in with_deadline.assessments)
    assert len(summaries) == 3  # half time, 75 % and 90 %: the demo ends before its deadline


def test_unknown_observer_names_fail_before_anything_runs() -> None:
    with pytest.raises(ConfigError, match="unknown observer 'nope'"):
        observers_named(["nope"])


def test_the_json_shape(session_file: Path) -> None:
    (parent, *_) = replay_transcript(read_transcript(session_file), lambda: [bash_watcher, broken])
    data = json.loads(json.dumps(parent.to_dict()))  # the keys: tests/cli/test_replay_cli.py
    (assessment,) = data["assessments"]
    assert (assessment["observer"], assessment["call_index"]) == ("Bash Watcher", 4)
    assert assessment["summary"] == "Bash ran: python -m pytest tests/test_cli.py -q"
    assert data["failures"][0]["observer"] == "Broken"
    assert data["malformed_lines"] == [13, 14, 15]


def test_replaying_a_folder_reads_every_session(fixtures: Path) -> None:
    results = list(
        replay_paths(transcript_paths(fixtures / "claude-code" / "sniffly"), observers_named())
    )
    assert len(results) == 4
    assert sum(r.tool_calls for r in results) == 30 + 58 + 7


def test_the_demo_loop_and_cascade_are_caught() -> None:
    result = replay_session(read_transcript(DEMO), observers_named())
    warnings = [a for a in result.assessments if is_warning(a.severity)]
    stall = next(a for a in warnings if a.observer_name == "Stall")
    cascade = next(a for a in warnings if a.observer_name == "Error Cascade")
    assert 13 <= stall.call_index <= 19  # during the seven identical pytest runs (calls 13-19)
    assert 13 <= cascade.call_index <= 25  # the failures run from call 13 to call 25
    assert "13" in stall.render()  # it cites the calls it rests on
    assert all(a.call_index < 30 for a in warnings)  # quiet again once the agent recovers


def test_ordinary_real_sessions_get_few_warnings(fixtures: Path) -> None:
    calls = warnings = 0
    for relative in ENDED_NORMALLY:
        for result in replay_transcript(read_transcript(fixtures / "claude-code" / relative)):
            calls += result.tool_calls
            warnings += result.warnings
    assert calls > 350
    assert warnings <= calls / 500, f"{warnings} warnings in {calls} tool calls"
