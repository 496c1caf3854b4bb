"""Clip long text without cutting a secret in two.

`events.clip` keeps a text's head and tail. Redaction runs later, on what is kept, and a secret
that straddles a cut is no longer recognisable there: its visible half would be stored. This clip
redacts a margin past each cut first, so a secret crossing it is replaced whole, and leaves the
middle that is dropped anyway unread (a megabyte of tool output costs two small windows).
Redaction is imported when a text is long enough to clip: short texts, and replay's clipping
(`events.clip`), never load its patterns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.events import OUTPUT_LIMIT, clip_marker

MARGIN = 4096
"""Characters past each cut that are redacted with the part kept: more than any secret shape
(a 4096-bit PEM private key is ~3,300)."""


def clip(text: str, limit: int = OUTPUT_LIMIT) -> str:
    """The head and tail of a long text with the secrets near the cuts redacted (short text is
    returned as it is: redaction of what is kept happens where it is stored)."""
    if len(text) <= limit:
        return text
    from .redact import PRIVATE, redact

    half = limit // 2
    if len(text) <= limit + 2 * MARGIN or PRIVATE.search(text):
        whole = redact(text)  # a <private> span may run past any window: take it all
        if len(whole) <= limit:
            return whole
        return f"{whole[:half]}{clip_marker(len(whole) - 2 * half)}{whole[-half:]}"
    head = redact(text[: half + MARGIN])[:half]
    tail = redact(text[-(half + MARGIN) :])[-half:]
    return f"{head}{clip_marker(len(text) - 2 * half)}{tail}"


def head(text: str, limit: int) -> str:
    """The first `limit` characters of a text, a secret crossing the cut redacted whole (the rest
    is left as it is: redaction of what is kept happens where it is used)."""
    if len(text) <= limit:
        return text
    from .redact import PRIVATE, redact

    if PRIVATE.search(text):
        return redact(text)[:limit]
    return redact(text[: limit + MARGIN])[:limit]


def tail(text: str, limit: int) -> str:
    """The last `limit` characters of a text, a secret crossing the cut redacted whole."""
    if len(text) <= limit:
        return text
    from .redact import PRIVATE, redact

    if PRIVATE.search(text):
        return redact(text)[-limit:]
    return redact(text[-(limit + MARGIN) :])[-limit:]


def clip_values(
    value: Any, limit: int = OUTPUT_LIMIT, clip_text: Callable[[str, int], str] = clip
) -> Any:
    """A copy of JSON data whose long strings are clipped by `clip_text`: `clip` for what is
    stored; replay, which stores nothing, passes `events.clip` and skips the redaction."""
    kind = type(value)
    if kind is str:
        return clip_text(value, limit) if len(value) > limit else value
    if kind is dict:  # a value that is kept as it is needs no call (most of them)
        return {
            key: item
            if type(item) in _KEPT or (type(item) is str and len(item) <= limit)
            else clip_values(item, limit, clip_text)
            for key, item in value.items()
        }
    if kind is list:
        return [clip_values(item, limit, clip_text) for item in value]
    return value


_KEPT = frozenset({int, float, bool, type(None)})
"""JSON values that `clip_values` gives back as they are."""
