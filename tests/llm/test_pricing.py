"""estimate_cost: list prices for known models, 0.0 for local ones, None when unknown."""

from __future__ import annotations

import pytest

from onlooker.llm import Usage, estimate_cost
from onlooker.llm.pricing import PRICES

USAGE = Usage(input_tokens=2_000_000, output_tokens=500_000)


@pytest.mark.parametrize(
    ("model", "dollars"),
    [
        ("openai:gpt-4o-mini", 2 * 0.15 + 0.5 * 0.60),
        ("gpt-4o-mini", 2 * 0.15 + 0.5 * 0.60),
        ("openai:gpt-4o-mini-2024-07-18", 2 * 0.15 + 0.5 * 0.60),
        ("openai:gpt-4o", 2 * 2.50 + 0.5 * 10.00),
        ("anthropic:claude-haiku-4-5", 2 * 1.00 + 0.5 * 5.00),
        ("anthropic:claude-haiku-4-5-20251001", 2 * 1.00 + 0.5 * 5.00),
        ("anthropic:claude-sonnet-4-5", 2 * 3.00 + 0.5 * 15.00),
        ("anthropic:claude-3-5-haiku-latest", 2 * 0.80 + 0.5 * 4.00),
        ("openai-compatible:https://openrouter.example/api/v1#openai/gpt-4o-mini", 0.6),
    ],
)
def test_known_models(model: str, dollars: float) -> None:
    assert estimate_cost(model, USAGE) == pytest.approx(dollars)


@pytest.mark.parametrize(
    "model",
    [
        "local:smollm2",
        "ollama:qwen2.5:7b",
        "openai-compatible:http://127.0.0.1:8080/v1#anything",
        "openai-compatible:http://localhost:8000/v1#gpt-4o",
        "openai-compatible:http://[::1]:8000/v1#m",
    ],
)
def test_local_models_cost_nothing(model: str) -> None:
    assert estimate_cost(model, USAGE) == 0.0


@pytest.mark.parametrize(
    "model",
    [
        "openai:gpt-99",
        "anthropic:claude-unknown",
        "openai-compatible:https://api.example.com/v1#mystery",
        "openai:o3-pro",  # a longer name is not priced as its shorter relative
        "scripted:test",
    ],
)
def test_unknown_models_have_no_price(model: str) -> None:
    assert estimate_cost(model, USAGE) is None


def test_zero_usage_costs_zero() -> None:
    assert estimate_cost("openai:gpt-4o", Usage()) == 0.0


def test_output_costs_at_least_input_for_every_listed_model() -> None:
    for name, (per_input, per_output) in PRICES.items():
        assert 0 < per_input <= per_output, name
