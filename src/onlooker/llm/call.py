"""What every provider does around one call: hold it to the timeout, shape the messages for JSON
answers, read the JSON back, and price the usage."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import InvalidOutput, ModelError, ModelTimeout, ModelUnavailable
from ..text.redact import redact
from .model import Completion, Message, Usage
from .pricing import estimate_cost
from .schema import parse_json

T = TypeVar("T")


async def within(timeout: float, model: str, work: Awaitable[T]) -> T:
    """`work`'s result, or ModelTimeout once `timeout` seconds have passed (`work` is cancelled)."""
    try:
        return await asyncio.wait_for(work, timeout)
    except TimeoutError:
        raise ModelTimeout(f"{model} did not answer within {timeout:g}s") from None


@dataclass(frozen=True, slots=True)
class Request:
    """One call to a model, as `Model.complete` received it."""

    messages: list[Message]
    schema: dict[str, Any] | None
    timeout: float
    max_tokens: int


class ModelBase:
    """What every provider shares: `complete` redacts the messages and holds `answer` to the
    timeout, so no provider can run past it. Subclasses set `name` and implement `answer`."""

    name: str

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None = None,
        timeout: float = 30.0,
        max_tokens: int = 1024,
    ) -> Completion:
        """Answer `messages` (see onlooker.llm.Model.complete); secrets in them are redacted
        before they leave for the provider."""
        sent = [Message(m.role, redact(m.content)) for m in messages]
        request = Request(sent, schema, timeout, max_tokens)
        return await within(timeout, self.name, self.answer(request))

    async def answer(self, request: Request) -> Completion:
        """One call, without the timeout; it is cancelled when the timeout passes."""
        raise NotImplementedError


def json_instruction(schema: dict[str, Any]) -> str:
    """The instruction added for providers that cannot enforce a schema on their own."""
    return (
        "Answer with one JSON value and nothing else (no prose, no code fence). "
        f"It must match this JSON schema:\n{json.dumps(schema, separators=(',', ':'))}"
    )


def with_json_instruction(messages: list[Message], schema: dict[str, Any]) -> list[Message]:
    """`messages` with the JSON instruction appended to the system message (added if none)."""
    instruction = json_instruction(schema)
    if messages and messages[0].role == "system":
        first = Message("system", f"{messages[0].content}\n\n{instruction}")
        return [first, *messages[1:]]
    return [Message("system", instruction), *messages]


def merge_system(messages: list[Message]) -> list[Message]:
    """For chat formats without a system role: system text goes to the front of the first user
    message (or becomes one), so it is not silently dropped."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    rest = [m for m in messages if m.role != "system"]
    if not system:
        return rest
    for index, message in enumerate(rest):
        if message.role == "user":
            rest[index] = Message("user", f"{system}\n\n{message.content}")
            return rest
    return [Message("user", system), *rest]


def read_json(text: str, request: Request, *, cut_off: bool) -> Any:
    """The answer's JSON, checked against the request's schema; a truncated answer says that
    max_tokens cut it off."""
    assert request.schema is not None
    try:
        return parse_json(text, request.schema)
    except InvalidOutput as exc:
        if cut_off:
            raise InvalidOutput(
                f"{exc} (the answer was cut off at max_tokens={request.max_tokens})", text
            ) from None
        raise


def priced(model: str, usage: Any, input_key: str, output_key: str) -> Usage:
    """Usage with its estimated cost, read from a provider's usage object or dict (absent: 0)."""

    def count(key: str) -> int:
        value = usage.get(key) if isinstance(usage, dict) else getattr(usage, key, None)
        return int(value or 0)

    tokens = Usage(count(input_key), count(output_key))
    return Usage(tokens.input_tokens, tokens.output_tokens, estimate_cost(model, tokens))


def provider_error(
    sdk: Any, error: Exception, model: str, where: str, timeout: float
) -> ModelError:
    """An openai or anthropic SDK exception (the two share their names) as a ModelError."""
    if isinstance(error, sdk.APIStatusError):
        detail = error.message
        body = error.body
        if isinstance(body, dict):
            inner = body.get("error", body)
            detail = inner.get("message", detail) if isinstance(inner, dict) else str(inner)
        return ModelUnavailable(f"{model}: {where} answered HTTP {error.status_code}: {detail}")
    if isinstance(error, sdk.APITimeoutError):
        return ModelTimeout(f"{model} did not answer within {timeout:g}s")
    if isinstance(error, sdk.APIConnectionError):
        return ModelUnavailable(f"{model}: cannot reach {where}: {error}")
    return ModelUnavailable(f"{model}: {where} sent a response that cannot be read: {error}")
