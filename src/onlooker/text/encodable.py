"""Text that UTF-8 can encode: a lone surrogate (`"\\ud800"` in JSON, bytes that are not UTF-8
decoded with `surrogateescape`) becomes U+FFFD, a split surrogate pair becomes its character.

Applied once at each edge where outside text enters state (specs/session.md, "Input that cannot
poison a session"), so no journal line, snapshot or index row ever fails to encode.
Standard library only: the hook client loads this folder by path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar

T = TypeVar("T")

REPLACEMENT = "\ufffd"


def encodable_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (the same object when it has none)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # UTF-16 pairs what can be paired and replaces the rest
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def encodable(value: T) -> T:
    """JSON-like data (keys included), a record, or data holding records, with every string
    made encodable; what holds no lone surrogate is returned as it was, not copied."""
    return _walk(value)  # type: ignore[no-any-return]


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        return encodable_text(value)
    if isinstance(value, Mapping):
        pairs = [(_walk(k), _walk(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    if isinstance(value, list | tuple):
        items = [_walk(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        if isinstance(value, list) or type(value) is tuple:
            return items if isinstance(value, list) else tuple(items)
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    names = _FIELDS.get(type(value))
    if names is None:
        if not dataclasses.is_dataclass(value) or isinstance(value, type):
            return value
        names = _FIELDS[type(value)] = tuple(f.name for f in dataclasses.fields(value) if f.init)
    changes = {}
    for name in names:
        current = getattr(value, name)
        if current is None or isinstance(current, bool | int | float):
            continue
        cleaned = _walk(current)
        if cleaned is not current:
            changes[name] = cleaned
    return dataclasses.replace(value, **changes) if changes else value


_FIELDS: dict[type, tuple[str, ...]] = {}
"""The init fields of each dataclass met, by type."""
