"""The module's config: the observer bundle's hooks-observations config, plus `ephemeral`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...config.document import ConfigInvalid, Problem
from ...config.schema import read_observations

#: What the module's config is called in its errors.
CONFIG_NAME = "hooks-onlooker config"
MODULE_KEYS = ("ephemeral",)


@dataclass(frozen=True, slots=True)
class ModuleSettings:
    overrides: Mapping[str, Any] = field(default_factory=dict)
    """ProjectConfig fields the config sets (reviewers, hooks, execution, issues)."""
    ephemeral: bool = False
    """Whether injected feedback is for the next model call only (HookResult.ephemeral): kept out
    of the history, seen only with orchestrators that apply ephemeral injections at that event."""


def module_settings(config: Mapping[str, Any]) -> ModuleSettings:
    """Read the module's config; ConfigInvalid names every bad field under `config.`."""
    if not isinstance(config, Mapping):
        raise ConfigInvalid([Problem(CONFIG_NAME, 0, "config", "must be a mapping")])
    problems: list[Problem] = []
    ephemeral = config.get("ephemeral", False)
    if not isinstance(ephemeral, bool):
        problems.append(Problem(CONFIG_NAME, 0, "config.ephemeral", "must be true or false"))
    observations = {k: v for k, v in config.items() if k not in MODULE_KEYS}
    overrides: dict[str, Any] = {}
    try:
        overrides = _observations(observations) if observations else {}
    except ConfigInvalid as exc:
        problems.extend(exc.problems)
    if problems:
        raise ConfigInvalid(problems)
    return ModuleSettings(overrides, ephemeral is True)


def _observations(config: Mapping[str, Any]) -> dict[str, Any]:
    """Checked by the project config's schema, as the YAML node tree of `config`. The lines of
    that tree are not the bundle's, so problems name the key path only."""
    import yaml

    from ...config.document import compose

    node = compose(yaml.safe_dump(dict(config), sort_keys=False), CONFIG_NAME)
    try:
        return read_observations(node, file=CONFIG_NAME, key="config")
    except ConfigInvalid as exc:
        raise ConfigInvalid([Problem(p.file, 0, p.key, p.message) for p in exc.problems]) from None
