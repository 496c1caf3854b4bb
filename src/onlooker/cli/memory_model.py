"""The memory model in effect and what it has used, for `onlooker status` and `doctor`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..memory import Memories
from ..memory.usage import describe, model_report
from ..store import Store

__all__ = ["describe", "memory_model"]


def memory_model(store: Store, project: Path | None = None) -> dict[str, Any]:
    """model_report for the project at `project` (default: the current directory)."""
    from ..config import load_project

    try:
        configured = load_project(project or Path(os.getcwd())).memory.model
    except ConfigError:  # doctor and config show report the file; memory is off for it
        configured = ""
    return model_report(
        Memories(store), configured=configured, home=store.home, now=store.clock.now()
    )
