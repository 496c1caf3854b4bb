"""openai: and anthropic: models: the requests their SDKs send, how answers and errors come back,
and the setup errors. The real SDKs talk to a local http.server that answers in each API's wire
format, so nothing here is a paid call."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from llm_wire import ASK, VERDICT, CannedServer, Reply, anthropic_message, chat_completion

from onlooker.llm import (
    InvalidOutput,
    ModelTimeout,
    ModelUnavailable,
    ProviderSetupError,
    model_from_string,
)


def ask(spec: str, base_url: str, **call: Any) -> Any:
    model = model_from_string(spec, api_key="sk-test-key", base_url=base_url)
    return asyncio.run(model.complete(ASK, **call))


def test_openai_request_and_answer(canned: CannedServer) -> None:
    canned.answer(Reply(chat_completion('{"verdict": "ok"}', model="gpt-4o-mini-2024-07-18")))
    completion = ask("openai:gpt-4o-mini", f"{canned.url}/v1", schema=VERDICT, max_tokens=50)

    request = canned.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-key"
    assert request.body["model"] == "gpt-4o-mini"
    assert request.body["max_completion_tokens"] == 50
    assert "max_tokens" not in request.body
    assert request.body["messages"][0] == {"role": "system", "content": "You review code."}
    assert request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": VERDICT, "strict": False},
    }
    assert completion.data == {"verdict": "ok"}
    assert completion.model == "gpt-4o-mini-2024-07-18"
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (12, 5)
    assert completion.usage.cost_usd == pytest.approx((12 * 0.15 + 5 * 0.60) / 1e6)


def test_openai_errors(canned: CannedServer) -> None:
    canned.answer(
        Reply({"error": {"message": "Incorrect API key provided", "type": "auth"}}, status=401)
    )
    with pytest.raises(ModelUnavailable, match="HTTP 401: Incorrect API key provided"):
        ask("openai:gpt-4o-mini", f"{canned.url}/v1")
    canned.answer(Reply({"error": {"message": "Rate limit reached"}}, status=429))
    with pytest.raises(ModelUnavailable, match="HTTP 429: Rate limit reached"):
        ask("openai:gpt-4o-mini", f"{canned.url}/v1")
    assert len(canned.requests) == 2, "the SDK's retries are off"


def test_openai_does_not_fall_back_from_json_schema(canned: CannedServer) -> None:
    canned.answer(Reply({"error": {"message": "Invalid schema"}}, status=400))
    with pytest.raises(ModelUnavailable, match="HTTP 400: Invalid schema"):
        ask("openai:gpt-4o-mini", f"{canned.url}/v1", schema=VERDICT)
    assert len(canned.requests) == 1


def test_anthropic_request_and_tool_answer(canned: CannedServer) -> None:
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "answer", "input": {"verdict": "ok"}}
    canned.answer(Reply(anthropic_message([tool_use], stop="tool_use")))
    completion = ask("anthropic:claude-haiku-4-5", canned.url, schema=VERDICT, max_tokens=80)

    request = canned.requests[0]
    assert request.path == "/v1/messages"
    sent_key = request.headers.get("x-api-key") or request.headers["authorization"]
    assert sent_key.removeprefix("Bearer ") == "sk-test-key"  # SDK versions differ in the header
    assert "anthropic-version" in request.headers
    assert request.body["model"] == "claude-haiku-4-5"
    assert request.body["max_tokens"] == 80
    assert request.body["system"] == "You review code."
    assert request.body["messages"] == [{"role": "user", "content": "Review: x = 1"}]
    assert request.body["tools"][0]["name"] == "answer"
    assert request.body["tools"][0]["input_schema"] == VERDICT
    assert request.body["tool_choice"] == {"type": "tool", "name": "answer"}
    assert completion.data == {"verdict": "ok"}
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (1000, 200)
    assert completion.usage.cost_usd == pytest.approx((1000 * 1.00 + 200 * 5.00) / 1e6)


def test_anthropic_text_answer(canned: CannedServer) -> None:
    canned.answer(Reply(anthropic_message([{"type": "text", "text": "Looks fine."}])))
    completion = ask("anthropic:claude-haiku-4-5", canned.url)
    assert completion.text == "Looks fine."
    assert completion.data is None
    assert "tools" not in canned.requests[0].body


def test_anthropic_wraps_a_schema_that_is_not_an_object(canned: CannedServer) -> None:
    schema = {"type": "array", "items": {"type": "string"}, "maxItems": 2}
    tool_use = {"type": "tool_use", "id": "t", "name": "answer", "input": {"value": ["a", "b"]}}
    canned.answer(Reply(anthropic_message([tool_use], stop="tool_use")))
    completion = ask("anthropic:claude-haiku-4-5", canned.url, schema=schema)
    assert canned.requests[0].body["tools"][0]["input_schema"]["properties"]["value"] == schema
    assert completion.data == ["a", "b"]


@pytest.mark.parametrize(
    ("content", "stop", "message"),
    [
        (
            [{"type": "tool_use", "id": "t", "name": "answer", "input": {"verdict": "meh"}}],
            "tool_use",
            '\\$.verdict: "meh" is not one of',
        ),
        (
            [{"type": "tool_use", "id": "t", "name": "answer", "input": {}}],
            "max_tokens",
            "cut off at max_tokens=1024",
        ),
        ([{"type": "text", "text": "I think it is ok"}], "end_turn", "holds no JSON object"),
    ],
)
def test_anthropic_answers_that_do_not_fit(
    canned: CannedServer, content: list[dict[str, Any]], stop: str, message: str
) -> None:
    canned.answer(Reply(anthropic_message(content, stop=stop)))
    with pytest.raises(InvalidOutput, match=message):
        ask("anthropic:claude-haiku-4-5", canned.url, schema=VERDICT)


def test_anthropic_errors(canned: CannedServer) -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    canned.answer(Reply(overloaded, status=529))
    with pytest.raises(ModelUnavailable, match="HTTP 529: Overloaded"):
        ask("anthropic:claude-haiku-4-5", canned.url)
    assert len(canned.requests) == 1, "the SDK's retries are off"
    canned.answer(Reply(anthropic_message([]), hold=True))
    with pytest.raises(ModelTimeout, match=r"within 0\.2s"):
        ask("anthropic:claude-haiku-4-5", canned.url, timeout=0.2)


@pytest.mark.parametrize(
    ("spec", "variable"),
    [("openai:gpt-4o-mini", "OPENAI_API_KEY"), ("anthropic:claude-haiku-4-5", "ANTHROPIC_API_KEY")],
)
def test_a_missing_key_says_what_to_set(
    spec: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ProviderSetupError, match=f"set {variable}"):
        model_from_string(spec)
    monkeypatch.setenv(variable, "sk-from-env")
    assert model_from_string(spec).name == spec
