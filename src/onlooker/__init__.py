"""onlooker: observers for AI agents.

Events flow into a Session; triggers decide which observers are due; the Engine runs them in
isolation; their Assessments are recorded and rendered back into the agent's context.
"""

from .core.assessment import SEVERITIES, Assessment, Finding, ObserverFailure, Severity, severity
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
