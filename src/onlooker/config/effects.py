"""The `side_effects` and `compliance` sections of a config file (specs/side-effects.md), read
with the same file:line:key problems as the rest of the file."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from ..compliance import (
    CHECK_TIMEOUT,
    MAX_CHECK_TIMEOUT,
    MAX_RETRIES,
    Artifact,
    ComplianceRule,
    ComplianceSettings,
)
from ..side_effects import Limits, Rule, SideEffectSettings, action_names
from .document import Reader, did_you_mean

if TYPE_CHECKING:
    import yaml

SIDE_EFFECT_KEYS = ("archive", "rules", *Limits().to_dict())
RULE_KEYS = ("action", "name", "tools", "path", "output", "options")
COMPLIANCE_KEYS = ("max_retries", "agents")
AGENT_KEYS = ("artifacts", "tools", "check", "timeout")
ARTIFACT_KEYS = ("glob", "min_size", "pattern")


def read_side_effects(reader: Reader, node: yaml.Node, key: str) -> SideEffectSettings | None:
    """The settings a `side_effects` section sets (the four built-ins when it names no rules)."""
    config = reader.mapping(node, key, SIDE_EFFECT_KEYS)
    if config is None:
        return None
    archive = reader.string(config.get("archive"), f"{key}.archive", "")
    default = Limits().to_dict()
    limits = {
        name: reader.integer(config.get(name), f"{key}.{name}", value)
        for name, value in default.items()
    }
    rules: tuple[Rule, ...] | None = SideEffectSettings().rules
    if "rules" in config:
        items = reader.sequence(config["rules"], f"{key}.rules")
        found = [_rule(reader, item, f"{key}.rules[{i}]") for i, item in enumerate(items or [])]
        rules = None if items is None or None in found else tuple(r for r in found if r)
        labels = [r.label for r in rules or ()]
        for i, label in enumerate(labels):
            if label in labels[:i]:
                reader.problem(items[i] if items else None, f"{key}.rules[{i}]",
                               f"a second rule named {label!r}; give it a `name:`")  # fmt: skip
    if archive is None or rules is None or None in limits.values():
        return None
    return SideEffectSettings(rules, archive, Limits(**limits))  # type: ignore[arg-type]


def _rule(reader: Reader, node: yaml.Node, key: str) -> Rule | None:
    config = reader.mapping(node, key, RULE_KEYS)
    if config is None:
        return None
    if "action" not in config:
        reader.problem(node, key, f"needs `action:`, one of: {', '.join(action_names())}")
        return None
    action = reader.string(config["action"], f"{key}.action")
    known = action_names()
    if action is not None and action not in known:
        reader.problem(config["action"], f"{key}.action",
                       f"{action!r} is not a side effect{did_you_mean(action, known)}; one of: "
                       f"{', '.join(known)}")  # fmt: skip
        action = None
    values: dict[str, Any] = {
        "name": reader.string(config.get("name"), f"{key}.name", ""),
        "tools": reader.strings(config.get("tools"), f"{key}.tools"),
        "path": reader.string(config.get("path"), f"{key}.path", ""),
        "output": _regex(reader, config.get("output"), f"{key}.output"),
        "options": reader.mapping(config.get("options"), f"{key}.options"),
    }
    if action is None or any(v is None for v in values.values()):
        return None
    values["options"] = reader.plain(config.get("options"), f"{key}.options") or {}
    return Rule(action, **values)


def read_compliance(reader: Reader, node: yaml.Node, key: str) -> ComplianceSettings | None:
    """The rules a `compliance` section sets, by agent type (`main` for the main agent)."""
    config = reader.mapping(node, key, COMPLIANCE_KEYS)
    if config is None:
        return None
    retries = reader.integer(config.get("max_retries"), f"{key}.max_retries", MAX_RETRIES, 0)
    agents = reader.mapping(config.get("agents"), f"{key}.agents")
    if agents is None:
        return None
    rules = [_agent(reader, name, value, f"{key}.agents.{name}") for name, value in agents.items()]
    if retries is None or None in rules:
        return None
    return ComplianceSettings(tuple(r for r in rules if r is not None), retries)


def _agent(reader: Reader, agent: str, node: yaml.Node, key: str) -> ComplianceRule | None:
    config = reader.mapping(node, key, AGENT_KEYS)
    if config is None:
        return None
    items = reader.sequence(config.get("artifacts"), f"{key}.artifacts")
    artifacts = [_artifact(reader, a, f"{key}.artifacts[{i}]") for i, a in enumerate(items or [])]
    tools = reader.strings(config.get("tools"), f"{key}.tools")
    check = reader.string(config.get("check"), f"{key}.check", "")
    timeout = reader.number(config.get("timeout"), f"{key}.timeout", CHECK_TIMEOUT,
                            maximum=MAX_CHECK_TIMEOUT)  # fmt: skip
    if not (artifacts or tools or check) and items is not None and tools is not None:
        reader.problem(node, key, "needs at least one of: artifacts, tools, check")
        return None
    if items is None or None in artifacts or tools is None or check is None or timeout is None:
        return None
    found = tuple(a for a in artifacts if a is not None)
    return ComplianceRule(agent, found, tools, check, timeout)


def _artifact(reader: Reader, node: yaml.Node, key: str) -> Artifact | None:
    config = reader.mapping(node, key, ARTIFACT_KEYS)
    if config is None:
        return None
    if "glob" not in config:
        reader.problem(node, key, "needs `glob:` (the file(s) the agent must write)")
        return None
    glob = reader.string(config["glob"], f"{key}.glob")
    if glob and (PurePosixPath(glob).is_absolute() or ".." in PurePosixPath(glob).parts):
        reader.problem(config["glob"], f"{key}.glob",
                       "must be a pattern inside the project (relative, without ..)")  # fmt: skip
        glob = None
    size = reader.integer(config.get("min_size"), f"{key}.min_size", 1, 0)
    pattern = _regex(reader, config.get("pattern"), f"{key}.pattern")
    if glob is None or size is None or pattern is None:
        return None
    return Artifact(glob, size, pattern)


def _regex(reader: Reader, node: yaml.Node | None, key: str) -> str | None:
    text = reader.string(node, key, "")
    if text:
        try:
            re.compile(text)
        except re.error as exc:
            reader.problem(node, key, f"{text!r} is not a regular expression: {exc}")
            return None
    return text
