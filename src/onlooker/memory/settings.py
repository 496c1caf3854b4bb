"""Memory settings, their defaults (specs/memory.md), and the project opt-out.

Config keys under `memory:` in `.onlooker/config.yaml`: `enabled`, `maxObservations`, `maxTokens`,
`recencyDays`, `projectOnly`, `model`, `sessionTokens`, `dailyTokens`. A project also opts out
with the marker file `.onlooker/no-memory` at its root: then nothing of its sessions is captured
or injected.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import MemorySettingsError
from ..store.home import project_root

OPT_OUT_MARKER = Path(".onlooker") / "no-memory"
"""A file at the project root that turns memory off for the project."""
MODEL_VARIABLE = "ONLOOKER_MEMORY_MODEL"
"""Names the extraction model when the config sets no `memory.model`."""
CHOICE_FILE = "memory.json"
"""In the data home: the extraction model the user chose (`{"model": "claude-code:haiku"}`)."""
NO_MODEL = "none: rule-based digest"
"""How `config show` names extraction when no model is configured."""


@dataclass(frozen=True, slots=True)
class MemorySettings:
    """How memory is captured, extracted and injected."""

    enabled: bool = True
    """`memory.enabled`: false turns capture and injection off for the project."""
    max_observations: int = 20
    """`memory.maxObservations`: most memories injected at session start."""
    max_tokens: int = 500
    """`memory.maxTokens`: token budget of the session-start digest (never exceeded)."""
    recency_days: int = 7
    """`memory.recencyDays`: only memories this recent are injected."""
    project_only: bool = True
    """`memory.projectOnly`: inject only the current project's memories."""
    model: str = ""
    """`memory.model`: the model spec extraction runs on (see onlooker.llm); '' means
    `$ONLOOKER_MEMORY_MODEL`, else none: memories are made by rule (memory.digest). A model is
    never chosen silently; the small local one (`local:smollm2`) runs only when named."""
    session_tokens: int = 50_000
    """`memory.sessionTokens`: most model tokens (input and output) extraction spends on one
    session; past it, batches are digested by rule. 0: no cap."""
    daily_tokens: int = 500_000
    """`memory.dailyTokens`: most model tokens extraction spends in a UTC day, every project of
    the data home together. 0: no cap."""

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str = "config") -> MemorySettings:
        """Settings from the `memory:` mapping of a config file (camelCase keys)."""
        keys = {_camel(f.name): f for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            found = keys.get(key)
            if found is None:
                raise MemorySettingsError(
                    f"{source}: unknown key memory.{key}; allowed: {', '.join(sorted(keys))}"
                )
            wanted = type(getattr(cls(), found.name))
            if type(value) is not wanted or (wanted is int and value < 0):
                raise MemorySettingsError(
                    f"{source}: memory.{key} must be a "
                    f"{'non-negative integer' if wanted is int else wanted.__name__}, "
                    f"not {value!r}"
                )
            values[found.name] = value
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The settings with the config file's (camelCase) keys."""
        return {_camel(f.name): getattr(self, f.name) for f in dataclasses.fields(self)}


def extraction_model(configured: str, home: Path | None = None) -> str:
    """The model extraction runs on: `configured` (memory.model), else `$ONLOOKER_MEMORY_MODEL`,
    else the user's choice kept in the data home `home` (`onlooker install claude-code
    --memory-model`), else '' (none: memories by rule)."""
    return configured or os.environ.get(MODEL_VARIABLE, "").strip() or chosen_model(home)


def model_source(configured: str, home: Path | None = None) -> str:
    """Where the extraction model in effect is named: `memory.model`, `$ONLOOKER_MEMORY_MODEL`,
    the user's choice (its file), or `none`."""
    if configured:
        return "memory.model"
    if os.environ.get(MODEL_VARIABLE, "").strip():
        return f"${MODEL_VARIABLE}"
    if home is not None and chosen_model(home):
        return f"chosen at install ({home / CHOICE_FILE})"
    return "none"


def chosen_model(home: Path | None) -> str:
    """The extraction model the user chose for every project of the data home ('' for none)."""
    if home is None:
        return ""
    try:
        data = json.loads((home / CHOICE_FILE).read_text())
    except (OSError, ValueError):
        return ""
    model = data.get("model") if isinstance(data, dict) else None
    return model.strip() if isinstance(model, str) else ""


def choose_model(home: Path, spec: str) -> Path:
    """Keep `spec` as the user's extraction model for every project of the data home; '' or
    `none` keeps the choice of no model (memories by rule; an interactive install does not ask
    again). The file written."""
    path = home / CHOICE_FILE
    home.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"model": "" if spec in ("", "none") else spec}) + "\n")
    return path


def model_chosen(home: Path) -> bool:
    """Whether the user chose (a model, or none) for the data home."""
    return (home / CHOICE_FILE).exists()


def opted_out(cwd: str | Path) -> bool:
    """True when the project holding `cwd` has the `.onlooker/no-memory` marker."""
    return (project_root(cwd) / OPT_OUT_MARKER).exists()


def memory_on(cwd: str | Path, settings: MemorySettings) -> bool:
    """Whether memory runs for the project at `cwd`: enabled and not opted out by marker."""
    return settings.enabled and not (cwd and opted_out(cwd))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
