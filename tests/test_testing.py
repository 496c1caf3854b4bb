"""The public ScriptedModel: answers in order, records requests, honours latency and timeouts."""

from __future__ import annotations

import asyncio

import pytest

from onlooker.llm.model import InvalidOutput, Message, Model, ModelTimeout, ModelUnavailable
from onlooker.testing import ScriptedModel


def ask(model: ScriptedModel, **kwargs: object) -> object:
    return asyncio.run(model.complete([Message("user", "review this")], **kwargs))  # type: ignore[arg-type]


def test_replies_in_order_then_the_last_repeats() -> None:
    model = ScriptedModel(["one", {"findings": []}])
    assert isinstance(model, Model)
    assert ask(model).text == "one"  # type: ignore[attr-defined]
    second = ask(model, schema={"type": "object"})
    assert second.data == {"findings": []}  # type: ignore[attr-defined]
    assert ask(model).text == '{"findings": []}'  # type: ignore[attr-defined]
    assert model.calls == 3
    assert "review this" in model.requests[0].prompt


def test_exceptions_and_functions_are_replies() -> None:
    model = ScriptedModel([ModelUnavailable("HTTP 503"), lambda request: request.prompt.upper()])
    with pytest.raises(ModelUnavailable):
        ask(model)
    assert ask(model).text == "REVIEW THIS"  # type: ignore[attr-defined]


def test_text_that_is_not_json_fails_a_schema_call() -> None:
    with pytest.raises(InvalidOutput) as caught:
        ask(ScriptedModel(["not json"]), schema={"type": "object"})
    assert caught.value.text == "not json"


def test_latency_past_the_timeout_is_a_timeout() -> None:
    model = ScriptedModel(["late"], latency=0.05)
    with pytest.raises(ModelTimeout):
        ask(model, timeout=0.01)
    assert ask(model, timeout=1.0).text == "late"  # type: ignore[attr-defined]
