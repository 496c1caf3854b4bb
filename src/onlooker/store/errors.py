"""The store's error: the index or a journal cannot be used (names the file and what to do).

StoreError derives from OnlookerError; UnknownFinding and LifecycleError from StoreError.
"""

from __future__ import annotations

from ..errors import OnlookerError


class StoreError(OnlookerError):
    """The data home cannot be read or written; the message names the file."""


class UnknownFinding(StoreError):
    """No stored finding has the id (or the prefix matches none or several)."""


class LifecycleError(StoreError):
    """A change the finding's status does not allow (acknowledging a resolved finding)."""
