"""What a model call cost, estimated from its token usage and a small table of list prices.

Prices are US dollars per million tokens (input, output), from the providers' public price lists;
they drift, so the figure is an estimate. Models that run on this machine cost 0.0; a model that is
not in the table costs None (unknown), never a guess.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .model import Usage

__all__ = ["PRICES", "estimate_cost"]

#: model name -> (input, output) US$ per million tokens; dated names (`-2024-07-18`) match too
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "o3": (2.00, 8.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "claude-opus-4-5": (5.00, 25.00),
    "claude-opus-4-1": (15.00, 75.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-haiku": (0.25, 1.25),
}

_PROVIDERS = ("openai", "anthropic", "openai-compatible", "ollama", "local", "claude-code")
_DATED = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


def estimate_cost(model: str, usage: Usage) -> float | None:
    """Dollars `usage` cost on `model`: a model string (`openai:gpt-4o-mini`) or a bare name.

    0.0 for models that run locally (`local:`, `ollama:`, an `openai-compatible:` server on a
    loopback address); None when the model's price is not known.
    """
    provider, _, name = model.partition(":")
    if provider not in _PROVIDERS:
        provider, name = "", model
    if provider in ("local", "ollama"):
        return 0.0
    if provider == "openai-compatible":
        base_url, _, name = name.partition("#")
        host = urlsplit(base_url).hostname or ""
        if host in ("localhost", "::1") or host.startswith("127."):
            return 0.0
    price = _price(name)
    if price is None:
        return None
    per_input, per_output = price
    return (usage.input_tokens * per_input + usage.output_tokens * per_output) / 1_000_000


def _price(name: str) -> tuple[float, float] | None:
    """The table entry for `name`, also when it is dated (`-2024-07-18`, `-20251001`, `-latest`)."""
    name = name.rsplit("/", 1)[-1]  # `openai/gpt-4o-mini`, as routers spell it
    return PRICES.get(name) or PRICES.get(_DATED.sub("", name))
