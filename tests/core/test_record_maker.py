"""Records made by `maker` equal the ones their dataclass makes (core/record_maker.py)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from onlooker.core.engine import DISPATCH_FIELDS, Dispatch
from onlooker.core.events import SessionStarted, ToolCall, UserPrompt
from onlooker.core.record_maker import maker
from onlooker.core.triggers import ObserverRun, Trigger, TriggerState, observer_run

AT = datetime(2026, 2, 12, 16, 2, 25, tzinfo=UTC)


def test_a_made_tool_call_equals_the_dataclass_one_with_its_defaults() -> None:
    make = maker(ToolCall, "session_id", "seq", "at", "tool", "output", "index")
    made = make("s", 3, AT, "Bash", "ok", 2)
    assert made == ToolCall(session_id="s", seq=3, at=AT, tool="Bash", output="ok", index=2)
    assert made.input == {} and made.result is None and made.input_id == ""
    assert type(made) is ToolCall
    again = make("s", 4, AT, "Bash", "ok", 3)
    assert again.input is not made.input  # a default factory gives each its own


@pytest.mark.parametrize(
    ("cls", "values"),
    [
        (UserPrompt, {"session_id": "s", "seq": 1, "at": AT, "text": "fix it"}),
        (SessionStarted, {"cwd": "/work/shop", "project": "shop", "agent_name": "a1"}),
        (ObserverRun, {"call_index": 4, "at": AT}),
        (TriggerState, {"runs": {"Stall": ObserverRun(call_index=1, at=AT)}}),
    ],
)
def test_made_records_equal_and_encode_as_the_dataclass_ones(
    cls: type, values: dict[str, object]
) -> None:
    made = maker(cls, *values)(*values.values())
    assert made == cls(**values)
    assert made.to_dict() == cls(**values).to_dict()


def test_the_engine_makes_observer_runs_and_dispatches_with_every_field() -> None:
    assert observer_run(2, AT) == ObserverRun(call_index=2, at=AT)
    assert tuple(f.name for f in dataclasses.fields(Dispatch)) == DISPATCH_FIELDS


def test_classes_a_maker_cannot_make_are_refused() -> None:
    with pytest.raises(TypeError, match="__post_init__"):
        maker(Trigger, "every_n_calls")  # its checks would be skipped
    with pytest.raises(TypeError, match="unknown or repeated"):
        maker(ToolCall, "tool", "nope")
    with pytest.raises(TypeError, match="unknown or repeated"):
        maker(ToolCall, "tool", "tool")

    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        name: str = ""

    with pytest.raises(TypeError, match="not a slot"):
        maker(Unslotted, "name")

    @dataclasses.dataclass(frozen=True, slots=True)
    class Required:
        name: str

    with pytest.raises(TypeError, match="no default"):
        maker(Required)
