"""The curated public names of `onlooker`: sorted, importable, and exactly these."""

from __future__ import annotations

import onlooker

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
    for name in ("ConfigError", "RecordError", "TranscriptError", "ObserverTimeout"):
        assert issubclass(getattr(onlooker, name), onlooker.OnlookerError)
