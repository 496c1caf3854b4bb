"""The curated public names of `onlooker`: sorted, importable, and exactly these."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import onlooker
from onlooker import errors
from onlooker.errors import OnlookerError

EXPECTED = {
    "FEEDBACK_LIMIT", "SEVERITIES", "Assessment", "AssistantMessage", "Clock", "Compacting",
    "ConfigError", "Deadline", "Dispatch", "Engine", "Event", "Finding", "FixedClock",
    "FunctionObserver", "Marker", "Observer", "ObserverContext", "ObserverFailure", "ObserverSpec",
    "ObserverTimeout", "OnlookerError", "Plan", "PlanStep", "PlanUpdated", "Record", "RecordError",
    "ReplayClock", "Session", "SessionEnded", "SessionInfo", "SessionStarted", "Severity",
    "SubagentStarted", "SubagentStopped", "SystemClock", "TaskContext", "ToolCall",
    "TranscriptError", "Trigger", "TriggerState", "TurnEnded", "UserPrompt", "immediate_feedback",
    "observer", "severity",
}  # fmt: skip


def test_all_is_sorted_and_complete() -> None:
    assert onlooker.__all__ == sorted(onlooker.__all__, key=lambda n: (not n.isupper(), n))
    assert set(onlooker.__all__) == EXPECTED
    for name in onlooker.__all__:
        assert getattr(onlooker, name) is not None


def test_every_error_derives_from_the_root() -> None:
    outside = sorted(
        name for name, error in _exception_classes() if not issubclass(error, OnlookerError)
    )
    assert sorted(set(outside) - PENDING) == [], "derive these from onlooker.errors.OnlookerError"
    # Once a pending class is under the root, it leaves PENDING.
    assert set(outside) == PENDING


def test_the_errors_docstring_draws_every_error() -> None:
    drawn = set(re.findall(r"^[│ ]*(?:[├└]── )?(\w+)", errors.__doc__ or "", re.M))
    named = {
        dotted.rpartition(".")[2] for dotted, _ in _exception_classes() if dotted not in PENDING
    }
    assert sorted(named - drawn) == []


#: Exception classes outside the root, in modules under other work (issue 12); each is to derive
#: from OnlookerError and leave this set.
PENDING: set[str] = set()
#: Modules that run a program when imported; they must define no class.
SCRIPTS = {
    "onlooker.__main__",
    "onlooker.daemon.entry",
    "onlooker.hook.entry",
    "onlooker.mcp.entry",
}


def _exception_classes() -> list[tuple[str, type[BaseException]]]:
    """Every exception class defined in a module of the package, as (dotted name, class)."""
    package = Path(onlooker.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if module in SCRIPTS:
            tree = ast.parse(path.read_text())
            assert not any(isinstance(node, ast.ClassDef) for node in ast.walk(tree)), module
            continue
        for name, value in vars(importlib.import_module(module)).items():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == module
            ):
                found.append((f"{module}.{name}", value))
    assert len(found) > 20, "the walk found too few exception classes"
    return found
