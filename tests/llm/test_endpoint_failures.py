"""An OpenAI-compatible endpoint that fails: refused connection, HTTP errors, bodies that are not
chat completions, answers that are not the JSON asked for, no answer at all. Each is a ModelError,
never a raw SDK exception, and no call outlasts its timeout. The real openai SDK talks to a local
http.server."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from llm_wire import ASK, VERDICT, CannedServer, Reply, chat_completion, free_port

from onlooker.llm import InvalidOutput, Message, ModelTimeout, ModelUnavailable, model_from_string


def ask(spec: str, **call: Any) -> Any:
    return asyncio.run(model_from_string(spec).complete(ASK, **call))


def endpoint(canned: CannedServer) -> str:
    return f"openai-compatible:{canned.url}/v1#m"


def test_refused_connection() -> None:
    model = model_from_string(f"openai-compatible:http://127.0.0.1:{free_port()}/v1#m")
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match=r"cannot reach http://127\.0\.0\.1"):
        asyncio.run(model.complete(ASK, timeout=5))
    assert time.monotonic() - started < 5


def test_http_500_carries_the_server_message(canned: CannedServer) -> None:
    canned.answer(Reply({"error": {"message": "CUDA out of memory"}}, status=500))
    with pytest.raises(ModelUnavailable, match="answered HTTP 500: CUDA out of memory"):
        ask(endpoint(canned))
    assert len(canned.requests) == 1, "no retries"


def test_http_4xx_carries_the_server_message(canned: CannedServer) -> None:
    canned.answer(Reply({"error": {"message": "model 'm' not found"}}, status=404))
    with pytest.raises(ModelUnavailable, match="answered HTTP 404: model 'm' not found"):
        ask(endpoint(canned))


@pytest.mark.parametrize(
    "reply",
    [
        Reply(b"<html>Bad gateway</html>", content_type="text/html"),
        Reply(b'{"id": "chatcmpl-1", "choices": [{"mess', content_type="application/json"),
        Reply({"object": "list", "data": []}),
    ],
    ids=["html", "truncated body", "not a chat completion"],
)
def test_a_body_that_is_not_a_chat_completion(canned: CannedServer, reply: Reply) -> None:
    canned.answer(reply)
    with pytest.raises(ModelUnavailable):
        ask(endpoint(canned))


@pytest.mark.parametrize(
    ("content", "finish", "message"),
    [
        ("Sure! The code looks fine.", "stop", "holds no JSON object"),
        ('{"verdict": "ok"', "length", "cut off at max_tokens=64"),
        ('{"verdict": "maybe"}', "stop", '\\$.verdict: "maybe" is not one of'),
        ('{"verdict" "ok"}', "stop", "not valid JSON"),
    ],
)
def test_garbage_or_truncated_json_is_invalid_output(
    canned: CannedServer, content: str, finish: str, message: str
) -> None:
    canned.answer(Reply(chat_completion(content, finish=finish)))
    with pytest.raises(InvalidOutput, match=message) as caught:
        ask(endpoint(canned), schema=VERDICT, max_tokens=64)
    assert caught.value.text == content


def test_a_server_that_never_answers_times_out_on_time(canned: CannedServer) -> None:
    canned.answer(Reply(chat_completion("late"), hold=True))
    model = model_from_string(endpoint(canned))
    started = time.monotonic()
    with pytest.raises(ModelTimeout, match=r"did not answer within 0\.3s"):
        asyncio.run(model.complete(ASK, timeout=0.3))
    assert time.monotonic() - started < 1.5


def test_json_schema_rejected_falls_back_to_json_object(canned: CannedServer) -> None:
    canned.answer(
        Reply({"error": {"message": "response_format json_schema unsupported"}}, status=500),
        Reply(chat_completion('{"verdict": "ok"}')),
    )
    model = model_from_string(endpoint(canned))

    async def twice() -> list[Any]:
        first = await model.complete(ASK, schema=VERDICT, max_tokens=32)
        second = await model.complete(ASK, schema=VERDICT, max_tokens=32)
        return [first.data, second.data]

    assert asyncio.run(twice()) == [{"verdict": "ok"}, {"verdict": "ok"}]
    formats = [r.body["response_format"]["type"] for r in canned.requests]
    assert formats == ["json_schema", "json_object", "json_object"], "remembered what worked"
    fallback = canned.requests[1].body
    assert fallback["response_format"]["schema"] == VERDICT
    assert fallback["max_tokens"] == 32
    assert "JSON schema" in fallback["messages"][0]["content"]
    assert fallback["messages"][0]["content"].startswith("You review code.")


def test_a_real_failure_is_not_hidden_by_the_fallback(canned: CannedServer) -> None:
    canned.answer(Reply({"error": {"message": "overloaded"}}, status=500))
    with pytest.raises(ModelUnavailable, match="HTTP 500: overloaded"):
        ask(endpoint(canned), schema=VERDICT)
    assert len(canned.requests) == 2
    assert model_from_string(endpoint(canned), structured="json_object") is not None


def test_ollama_uses_its_openai_endpoint(
    canned: CannedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{canned.port}")
    canned.answer(Reply(chat_completion("hi", model="qwen2.5")))
    completion = ask("ollama:qwen2.5", max_tokens=16)
    assert canned.requests[0].path == "/v1/chat/completions"
    assert canned.requests[0].body["model"] == "qwen2.5"
    assert (completion.text, completion.usage.cost_usd) == ("hi", 0.0)


def test_secrets_are_redacted_before_they_are_sent(canned: CannedServer) -> None:
    canned.answer(Reply(chat_completion("ok")))
    leaked = "deploy with OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123"
    asyncio.run(model_from_string(endpoint(canned)).complete([Message("user", leaked)]))
    sent = canned.requests[0].body["messages"][0]["content"]
    assert "sk-proj-abcdefghijklmnopqrstuvwxyz0123" not in sent
    assert "[REDACTED" in sent
