"""The exceptions onlooker raises, all under one root.

OnlookerError
├── ConfigError        a configuration value is wrong (names the file and the field)
├── RecordError        a record (event, assessment) cannot be decoded
├── TranscriptError    a transcript cannot be read at all
└── ObserverTimeout    an observer ran past its time limit (recorded, never propagated)
"""

from __future__ import annotations


class OnlookerError(Exception):
    """Root of every error onlooker raises on purpose."""


class ConfigError(OnlookerError):
    """A configuration value is wrong; the message names where and what is allowed."""


class RecordError(OnlookerError):
    """A stored or received record does not decode into a known record kind."""


class TranscriptError(OnlookerError):
    """A transcript file cannot be read (missing, unreadable, or not a transcript)."""


class ObserverTimeout(OnlookerError):
    """An observer ran past its timeout. The engine records it as a failure."""


class StoreError(OnlookerError):
    """The data home cannot be read or written; the message names the file."""


class UnknownFinding(StoreError):
    """No stored finding has the id (or the prefix matches none or several)."""


class LifecycleError(StoreError):
    """A change the finding's status does not allow (acknowledging a resolved finding)."""
