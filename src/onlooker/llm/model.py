"""The Model protocol every LLM provider meets: messages in; text, or schema-checked JSON, out.

A call has a timeout and a token budget and reports its usage (tokens and estimated cost), so the
cost of each observer run can be recorded. Provider failures are ModelError subclasses, never raw
SDK exceptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from ..errors import InvalidOutput as InvalidOutput
from ..errors import ModelError as ModelError
from ..errors import ModelTimeout as ModelTimeout
from ..errors import ModelUnavailable as ModelUnavailable
from ..errors import ProviderSetupError as ProviderSetupError

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a call used and what it cost (None when the price is unknown)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        cost = (
            None
            if self.cost_usd is None and other.cost_usd is None
            else (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        )
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens, cost
        )


@dataclass(frozen=True, slots=True)
class Completion:
    """What a model answered."""

    text: str
    """The raw text of the answer."""
    data: Any = None
    """The parsed JSON when a schema was asked for (already checked against it)."""
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    """The model that answered, as the provider names it."""


@runtime_checkable
class Model(Protocol):
    """An LLM that onlooker can ask. Implementations: onlooker.llm providers, onlooker.testing."""

    @property
    def name(self) -> str:
        """The model string it was made from, e.g. `openai:gpt-4o-mini`."""
        ...

    async def complete(
        self,
        messages: list[Message],
        *,
        schema: dict[str, Any] | None = None,
        timeout: float = 30.0,
        max_tokens: int = 1024,
    ) -> Completion:
        """Answer `messages`; with `schema`, return JSON valid against it in `Completion.data`.

        Raises ModelTimeout past `timeout` seconds, ModelUnavailable when the provider cannot be
        reached or answers with an error, InvalidOutput when the answer does not fit `schema`.
        """
        ...
