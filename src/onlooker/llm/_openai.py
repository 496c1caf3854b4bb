"""Chat completions through the official `openai` SDK: OpenAI itself, Ollama, llama.cpp's server,
vLLM and any other OpenAI-compatible endpoint.

Structured output asks for `response_format: json_schema`. Some compatible servers reject it
(llama_cpp.server answers HTTP 500) but accept `{"type": "json_object", "schema": ...}`; in `auto`
mode a rejected json_schema request is sent again that way, within the same timeout, and the model
remembers what worked. The SDK's own retries are off: one call, one request (two at most in auto).
"""

from __future__ import annotations

import functools
import ssl
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import ModelUnavailable
from .call import ModelBase, Request, priced, provider_error, read_json, with_json_instruction
from .model import Completion

Structured = Literal["auto", "json_schema", "json_object"]

#: statuses with which a server says it does not understand a request field
_REJECTS_FIELD = frozenset({400, 422, 500, 501})


@dataclass
class OpenAIChatModel(ModelBase):
    """A model behind an OpenAI-compatible chat completions endpoint."""

    name: str
    """The model string, e.g. `openai:gpt-4o-mini`."""
    model: str
    """The model as the endpoint names it."""
    api_key: str
    base_url: str | None = None
    """None: the SDK's default (OPENAI_BASE_URL, else api.openai.com)."""
    structured: Structured = "json_schema"
    token_limit: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    temperature: float | None = None

    async def answer(self, request: Request) -> Completion:
        import openai

        modes: list[Structured | None] = [None]
        if request.schema is not None:
            auto = self.structured == "auto"
            modes = ["json_schema", "json_object"] if auto else [self.structured]
        client = openai.AsyncOpenAI(
            api_key=self.api_key,
            base_url=self.base_url,
            timeout=request.timeout,
            max_retries=0,
            http_client=openai.DefaultAsyncHttpxClient(verify=_tls_context()),
        )
        async with client:
            for attempt, mode in enumerate(modes, start=1):
                try:
                    response = await client.chat.completions.create(**self._body(request, mode))
                except (openai.APIError, ValueError) as exc:  # ValueError: a body that is not JSON
                    status = getattr(exc, "status_code", None)
                    if attempt < len(modes) and status in _REJECTS_FIELD:
                        continue
                    raise provider_error(
                        openai, exc, self.name, self._where(), request.timeout
                    ) from None
                if mode is not None and self.structured == "auto":
                    self.structured = mode
                return self._completion(response, request)
        raise AssertionError("unreachable: every mode either answers or raises")

    def _body(self, request: Request, mode: Structured | None) -> dict[str, Any]:
        """The chat completion request: messages, the token limit, the response format."""
        schema, messages = request.schema, request.messages
        if schema is not None and mode == "json_object":
            messages = with_json_instruction(messages, schema)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            self.token_limit: request.max_tokens,
        }
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if schema is not None and mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema, "strict": False},
            }
        elif schema is not None:
            body["response_format"] = {"type": "json_object", "schema": schema}
        return body

    def _completion(self, response: Any, request: Request) -> Completion:
        choices = getattr(response, "choices", None)
        if not choices:
            raise ModelUnavailable(f"{self.name}: the response holds no answer: {response!s:.200}")
        choice = choices[0]
        text = choice.message.content or ""
        usage = getattr(response, "usage", None)
        tokens = priced(self.name, usage, "prompt_tokens", "completion_tokens")
        data = None
        if request.schema is not None:
            cut_off = choice.finish_reason == "length"
            data = read_json(text, request, cut_off=cut_off)
        return Completion(text=text, data=data, usage=tokens, model=response.model or self.model)

    def _where(self) -> str:
        return self.base_url or "the OpenAI API"


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every client: building one loads the CA bundle (~70 ms of CPU), which
    a new client per call would otherwise pay each time, serially, for parallel reviewers."""
    try:
        import certifi
    except ImportError:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())
