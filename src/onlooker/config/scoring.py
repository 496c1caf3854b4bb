"""The `scoring` section of a config file: the session scoring settings (specs/scoring.md), read
with the same file:line:key problems as the rest of the file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..scoring.settings import DETAIL_LEVELS, ScoringSettings
from .document import Reader
from .memory import ModelField

if TYPE_CHECKING:
    import yaml

SCORING_KEYS = (
    "enabled", "model", "detail_level", "scoring_threshold", "min_observations_for_update",
    "auto_update_agents_md", "auto_update_agent_prompts", "max_history", "backup_enabled",
    "backup_max_versions", "sections_managed", "agents_observed", "instructions_file", "retries",
    "timeout", "turn_interval", "notify_on_evaluation",
)  # fmt: skip


def read_scoring(
    reader: Reader, node: yaml.Node, key: str, model: ModelField
) -> ScoringSettings | None:
    """The settings a `scoring` section sets (defaults for the rest); problems go to the reader."""
    config = reader.mapping(node, key, SCORING_KEYS)
    if config is None:
        return None
    d = ScoringSettings()

    def flag(name: str) -> bool | None:
        return reader.boolean(config.get(name), f"{key}.{name}", getattr(d, name))

    def count(name: str, least: int) -> int | None:
        return reader.integer(config.get(name), f"{key}.{name}", getattr(d, name), least)

    values: dict[str, Any] = {
        "enabled": flag("enabled"),
        "model": model(config.get("model"), f"{key}.model") or "",
        "detail_level": reader.choice(
            config.get("detail_level"), f"{key}.detail_level", DETAIL_LEVELS
        )
        or d.detail_level,
        "scoring_threshold": reader.number(
            config.get("scoring_threshold"),
            f"{key}.scoring_threshold",
            d.scoring_threshold,
            positive=False,
            maximum=1.0,
        ),
        "min_observations_for_update": count("min_observations_for_update", 1),
        "auto_update_agents_md": flag("auto_update_agents_md"),
        "auto_update_agent_prompts": flag("auto_update_agent_prompts"),
        "max_history": count("max_history", 1),
        "backup_enabled": flag("backup_enabled"),
        "backup_max_versions": count("backup_max_versions", 1),
        "sections_managed": _strings(reader, config, key, "sections_managed", d.sections_managed),
        "agents_observed": _strings(reader, config, key, "agents_observed", d.agents_observed),
        "instructions_file": reader.string(
            config.get("instructions_file"), f"{key}.instructions_file", ""
        ),
        "retries": count("retries", 0),
        "timeout": reader.number(config.get("timeout"), f"{key}.timeout", d.timeout),
        "turn_interval": count("turn_interval", 0),
        "notify_on_evaluation": flag("notify_on_evaluation"),
    }
    if any(value is None for value in values.values()):
        return None
    return ScoringSettings(**values)


def _strings(
    reader: Reader, config: dict[str, Any], key: str, name: str, default: tuple[str, ...]
) -> tuple[str, ...] | None:
    if name not in config:
        return default
    return reader.strings(config[name], f"{key}.{name}")
