"""The `memory` section of a config file: the memory settings (camelCase keys, specs/memory.md)
read with the same file:line:key problems as the rest of the file."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..memory.settings import MemorySettings
from .document import Reader

if TYPE_CHECKING:
    import yaml

MEMORY_KEYS = (
    "enabled", "maxObservations", "maxTokens", "recencyDays", "projectOnly", "model",
    "sessionTokens", "dailyTokens",
)  # fmt: skip


ModelField = Callable[["yaml.Node | None", str], "str | None"]
"""Reads a model-string field (the schema's check of model strings); None when it is wrong."""


def read_memory(
    reader: Reader, node: yaml.Node, key: str, model: ModelField
) -> MemorySettings | None:
    """The settings a `memory` section sets (defaults for the rest); problems go to the reader."""
    config = reader.mapping(node, key, MEMORY_KEYS)
    if config is None:
        return None
    default = MemorySettings()
    values: dict[str, Any] = {
        "enabled": reader.boolean(config.get("enabled"), f"{key}.enabled", default.enabled),
        "max_observations": reader.integer(
            config.get("maxObservations"), f"{key}.maxObservations", default.max_observations, 0
        ),
        "max_tokens": reader.integer(
            config.get("maxTokens"), f"{key}.maxTokens", default.max_tokens, 0
        ),
        "recency_days": reader.integer(
            config.get("recencyDays"), f"{key}.recencyDays", default.recency_days, 1
        ),
        "project_only": reader.boolean(
            config.get("projectOnly"), f"{key}.projectOnly", default.project_only
        ),
        "model": model(config.get("model"), f"{key}.model") or "",
        "session_tokens": reader.integer(
            config.get("sessionTokens"), f"{key}.sessionTokens", default.session_tokens, 0
        ),
        "daily_tokens": reader.integer(
            config.get("dailyTokens"), f"{key}.dailyTokens", default.daily_tokens, 0
        ),
    }
    if any(value is None for value in values.values()):
        return None
    return MemorySettings(**values)
