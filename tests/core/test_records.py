"""Events and other records round-trip through JSON with their `kind` tag."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from onlooker import (
    Assessment,
    AssistantMessage,
    Compacting,
    Finding,
    Marker,
    PlanStep,
    PlanUpdated,
    RecordError,
    SessionEnded,
    SessionStarted,
    SubagentStarted,
    SubagentStopped,
    ToolCall,
    TurnEnded,
    UserPrompt,
)
from onlooker.core.records import Record, decode_record

AT = datetime(2026, 2, 12, 16, 2, 25, 284000, tzinfo=UTC)

EXAMPLES: list[Record] = [
    SessionStarted(session_id="s", seq=1, at=AT, source="resume", cwd="/p", deadline=AT),
    UserPrompt(session_id="s", seq=2, at=AT, text="fix the tests"),
    AssistantMessage(session_id="s", seq=3, at=AT, text="On it", reasoning="think"),
    ToolCall(
        session_id="s",
        seq=4,
        at=AT,
        call_id="toolu_1",
        tool="Bash",
        input={"command": "pytest -q", "timeout": 60},
        output="1 failed",
        ok=False,
        error="Exit code 1",
        duration_ms=812.5,
        result={"stdout": "1 failed", "interrupted": False},
        index=1,
    ),
    PlanUpdated(steps=(PlanStep(content="a", status="completed"), PlanStep(content="b"))),
    SubagentStarted(agent_id="a1", agent_type="Explore"),
    SubagentStopped(agent_id="a1", agent_type="Explore", transcript_path="/t.jsonl"),
    Compacting(trigger="manual"),
    TurnEnded(last_message="done"),
    SessionEnded(reason="logout"),
    Marker(name="plan_progress_check", data={"step": 2}),
    Assessment(
        observer_name="Stall",
        summary="Stuck",
        findings=(Finding(content="same call", category="loop", evidence="calls 3, 4"),),
        suggestions=("try something else",),
        severity="warning",
        timestamp=AT,
        call_index=4,
    ),
]


@pytest.mark.parametrize("value", EXAMPLES, ids=lambda r: r.kind)
def test_record_round_trips_through_json(value: Record) -> None:
    text = value.to_json()
    data = json.loads(text)
    assert data["kind"] == value.kind
    assert decode_record(json.loads(text)) == value
    assert type(value).from_json(text) == value


def test_events_carry_session_seq_and_time() -> None:
    data = EXAMPLES[3].to_dict()
    assert (data["session_id"], data["seq"], data["at"]) == (
        "s",
        4,
        "2026-02-12T16:02:25.284000+00:00",
    )


def test_severity_aliases_map_to_onlooker_severities() -> None:
    assert Assessment(severity="caution").severity == "medium"
    assert Assessment(severity="warning").severity == "high"
    with pytest.raises(ValueError, match="severity 'urgent' is not one of"):
        Assessment(severity="urgent")


def test_unknown_kind_is_a_clear_error() -> None:
    with pytest.raises(RecordError, match="unknown record kind 'tool_called'"):
        decode_record({"kind": "tool_called"})
    with pytest.raises(RecordError, match="expected a user_prompt record"):
        UserPrompt.from_dict(EXAMPLES[0].to_dict())


def test_bad_field_value_names_the_field() -> None:
    data = EXAMPLES[0].to_dict()
    data["at"] = "yesterday"
    with pytest.raises(RecordError, match="field 'at' of SessionStarted"):
        decode_record(data)
