"""The context the engine hands an observer, made fast, is the one the dataclass makes."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import PurePath

import pytest

from onlooker.core.clock import Deadline, FixedClock
from onlooker.core.events import EPOCH, ToolCall
from onlooker.core.observer import CONTEXT_FIELDS, ObserverContext, dispatch_context
from onlooker.core.session import Session


def test_the_fast_context_sets_every_field_of_the_context() -> None:
    assert tuple(f.name for f in dataclasses.fields(ObserverContext)) == CONTEXT_FIELDS


def test_the_fast_context_equals_the_one_the_dataclass_makes() -> None:
    session, clock = Session("s"), FixedClock(EPOCH)
    values = {
        "session": session,
        "observer_name": "Stall",
        "clock": clock,
        "deadline": Deadline(EPOCH, clock),
        "project_root": PurePath("/work/shop"),
        "event": ToolCall(tool="Bash", index=1),
        "open_findings": functools.partial(tuple, ()),
    }
    made = dispatch_context(*values.values())
    assert made == ObserverContext(**values)
    assert made.model is None
    assert made.observer_name == "Stall" and made.event == values["event"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.observer_name = "changed"  # type: ignore[misc]
