"""onlooker: observers for AI agents.

Events flow into a Session; triggers decide which observers are due; the Engine runs them in
isolation; their Assessments are recorded and rendered back into the agent's context.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` is not imported: `import onlooker` stays cheap
if TYPE_CHECKING:
    from typing import Any

    from .core.assessment import (
        SEVERITIES,
        Assessment,
        Finding,
        ObserverFailure,
        Severity,
        severity,
    )
    from .core.clock import Clock, Deadline, FixedClock, ReplayClock, SystemClock
    from .core.engine import Dispatch, Engine, ObserverSpec
    from .core.events import (
        AssistantMessage,
        Compacting,
        Event,
        Marker,
        PlanStep,
        PlanUpdated,
        SessionEnded,
        SessionStarted,
        SubagentStarted,
        SubagentStopped,
        ToolCall,
        TurnEnded,
        UserPrompt,
    )
    from .core.feedback import FEEDBACK_LIMIT, immediate_feedback
    from .core.observer import FunctionObserver, Observer, ObserverContext, observer
    from .core.plan import Plan
    from .core.records import Record
    from .core.session import Session, SessionInfo, TaskContext
    from .core.triggers import Trigger, TriggerState
    from .errors import ConfigError, ObserverTimeout, OnlookerError, RecordError, TranscriptError

__version__ = "0.1.0"

__all__ = [
    "FEEDBACK_LIMIT",
    "SEVERITIES",
    "Assessment",
    "AssistantMessage",
    "Clock",
    "Compacting",
    "ConfigError",
    "Deadline",
    "Dispatch",
    "Engine",
    "Event",
    "Finding",
    "FixedClock",
    "FunctionObserver",
    "Marker",
    "Observer",
    "ObserverContext",
    "ObserverFailure",
    "ObserverSpec",
    "ObserverTimeout",
    "OnlookerError",
    "Plan",
    "PlanStep",
    "PlanUpdated",
    "Record",
    "RecordError",
    "ReplayClock",
    "Session",
    "SessionEnded",
    "SessionInfo",
    "SessionStarted",
    "Severity",
    "SubagentStarted",
    "SubagentStopped",
    "SystemClock",
    "TaskContext",
    "ToolCall",
    "TranscriptError",
    "Trigger",
    "TriggerState",
    "TurnEnded",
    "UserPrompt",
    "immediate_feedback",
    "observer",
    "severity",
]

_HOMES = {
    "Assessment": ".core.assessment",
    "AssistantMessage": ".core.events",
    "Clock": ".core.clock",
    "Compacting": ".core.events",
    "ConfigError": ".errors",
    "Deadline": ".core.clock",
    "Dispatch": ".core.engine",
    "Engine": ".core.engine",
    "Event": ".core.events",
    "FEEDBACK_LIMIT": ".core.feedback",
    "Finding": ".core.assessment",
    "FixedClock": ".core.clock",
    "FunctionObserver": ".core.observer",
    "Marker": ".core.events",
    "Observer": ".core.observer",
    "ObserverContext": ".core.observer",
    "ObserverFailure": ".core.assessment",
    "ObserverSpec": ".core.engine",
    "ObserverTimeout": ".errors",
    "OnlookerError": ".errors",
    "Plan": ".core.plan",
    "PlanStep": ".core.events",
    "PlanUpdated": ".core.events",
    "Record": ".core.records",
    "RecordError": ".errors",
    "ReplayClock": ".core.clock",
    "SEVERITIES": ".core.assessment",
    "Session": ".core.session",
    "SessionEnded": ".core.events",
    "SessionInfo": ".core.session",
    "SessionStarted": ".core.events",
    "Severity": ".core.assessment",
    "SubagentStarted": ".core.events",
    "SubagentStopped": ".core.events",
    "SystemClock": ".core.clock",
    "TaskContext": ".core.session",
    "ToolCall": ".core.events",
    "TranscriptError": ".errors",
    "Trigger": ".core.triggers",
    "TriggerState": ".core.triggers",
    "TurnEnded": ".core.events",
    "UserPrompt": ".core.events",
    "immediate_feedback": ".core.feedback",
    "observer": ".core.observer",
    "severity": ".core.assessment",
}
"""Where each public name lives: imported on first use, so `import onlooker` (what `python -m
onlooker` and every command start with) loads nothing heavy."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
