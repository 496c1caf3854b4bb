"""Reviewers a config puts on the hook path whose model cannot be there (specs/config.md).

`execution.mode: parallel` (and `inline`) makes the agent wait for the due reviewers in the hook.
A model that starts the user's agent CLI (`claude-code:`, `opencode:`; seconds a call) never runs
there: such a reviewer is run in the background instead (reviewers/handoff.py), the others as
configured. Nothing is turned off; `config validate`, `doctor` and `install` say so, naming the
field and the file.
"""

from __future__ import annotations

from ..llm.providers import starts_a_cli
from .project import ProjectConfig
from .schema import OBSERVATIONS


def moved_to_background(config: ProjectConfig) -> list[str]:
    """One note per enabled reviewer whose model starts an agent CLI while the execution mode
    waits in the hook ([] when there is none): `FILE: KEY: what happens`."""
    if config.execution.mode == "background":
        return []
    where = next(
        (
            f"behaviors[{i}].config"
            for i, m in enumerate(config.behaviors)
            if m.module == OBSERVATIONS
        ),
        "observations",
    )
    file = str(config.path) if config.path is not None else "config"
    return [
        f"{file}: {where}.observers[{i}].model: {reviewer.model} starts your agent's CLI, which "
        f"takes seconds, so observer {reviewer.name!r} runs in the background, not in the hook "
        f"(execution.mode {config.execution.mode} is for models that answer within it)"
        for i, reviewer in enumerate(config.reviewers)
        if reviewer.enabled and starts_a_cli(reviewer.model)
    ]
