"""Claude through the official `anthropic` SDK (Messages API).

System messages go to the `system` field. A JSON schema becomes one tool, `answer`, that the model
is made to call (tool_choice), so the answer arrives as the tool's input; a schema that is not an
object is wrapped in `{"value": ...}` and unwrapped again, since tool inputs are objects.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidOutput, ModelUnavailable
from .call import ModelBase, Request, priced, provider_error, read_json
from .model import Completion
from .schema import check

ANSWER_TOOL = "answer"


@dataclass
class AnthropicModel(ModelBase):
    """A Claude model."""

    name: str
    """The model string, e.g. `anthropic:claude-haiku-4-5`."""
    model: str
    api_key: str
    base_url: str | None = None
    """None: the SDK's default (ANTHROPIC_BASE_URL, else api.anthropic.com)."""
    temperature: float | None = None

    async def answer(self, request: Request) -> Completion:
        import anthropic

        where = self.base_url or "the Anthropic API"
        client = anthropic.AsyncAnthropic(
            api_key=self.api_key, base_url=self.base_url, timeout=request.timeout, max_retries=0
        )
        async with client:
            try:
                response = await client.messages.create(**self._body(request))
            except (anthropic.APIError, ValueError) as exc:  # ValueError: a body that is not JSON
                raise provider_error(anthropic, exc, self.name, where, request.timeout) from None
        return self._completion(response, request)

    def _body(self, request: Request) -> dict[str, Any]:
        """The Messages API request: system apart, the schema as a forced `answer` tool."""
        messages = request.messages
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": [
                {"role": m.role, "content": m.content} for m in messages if m.role != "system"
            ],
        }
        if system:
            body["system"] = system
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if request.schema is not None:
            body["tools"] = [
                {
                    "name": ANSWER_TOOL,
                    "description": "Give your answer. Call this exactly once.",
                    "input_schema": _object_schema(request.schema),
                }
            ]
            body["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
        return body

    def _completion(self, response: Any, request: Request) -> Completion:
        blocks = getattr(response, "content", None)
        if not isinstance(blocks, list):
            raise ModelUnavailable(f"{self.name}: the response holds no answer: {response!s:.200}")
        text = "".join(getattr(b, "text", "") for b in blocks if getattr(b, "type", "") == "text")
        usage = getattr(response, "usage", None)
        tokens = priced(self.name, usage, "input_tokens", "output_tokens")
        data = None
        if request.schema is not None:
            data, text = self._data(blocks, text, request, getattr(response, "stop_reason", None))
        return Completion(text=text, data=data, usage=tokens, model=response.model or self.model)

    def _data(
        self, blocks: list[Any], text: str, request: Request, stop_reason: str | None
    ) -> tuple[Any, str]:
        """The checked JSON answer and its text: from the `answer` tool call, else from the text."""
        assert request.schema is not None
        cut_off = stop_reason == "max_tokens"
        calls = [b for b in blocks if getattr(b, "type", "") == "tool_use"]
        if not calls:
            return read_json(text, request, cut_off=cut_off), text
        raw = json.dumps(calls[0].input)
        if cut_off:
            raise InvalidOutput(f"the answer was cut off at max_tokens={request.max_tokens}", raw)
        data = _unwrap(calls[0].input, request.schema)
        return check(data, request.schema), json.dumps(data)


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    if schema.get("type") == "object":
        return schema
    return {"type": "object", "properties": {"value": schema}, "required": ["value"]}


def _unwrap(data: Any, schema: dict[str, Any]) -> Any:
    if schema.get("type") == "object" or not isinstance(data, dict):
        return data
    return data.get("value")
