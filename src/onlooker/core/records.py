"""Records: frozen dataclasses that round-trip through JSON with a `kind` tag.

Events, assessments, findings and the session's derived state are all records, so one codec writes
journals, snapshots and `--json` output. `@record("kind")` registers a class.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from ..errors import RecordError
from .clock import parse_time

R = TypeVar("R", bound="Record")
T = TypeVar("T")

_KINDS: dict[str, type[Record]] = {}
_HINTS: dict[type, dict[str, Any]] = {}


class Record:
    """Base of every serialisable record; subclasses are frozen, slotted dataclasses."""

    __slots__ = ()
    kind: ClassVar[str] = ""
    window: ClassVar[int | None] = None
    """How many records of this kind a session keeps (None: the session's default window)."""

    def to_dict(self) -> dict[str, Any]:
        data = encode(self)
        assert isinstance(data, dict)
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls: type[R], data: dict[str, Any]) -> R:
        value = decode_record(data)
        if not isinstance(value, cls):
            raise RecordError(
                f"expected a {cls.kind or cls.__name__} record, got {data.get('kind')!r}"
            )
        return value

    @classmethod
    def from_json(cls: type[R], text: str) -> R:
        return cls.from_dict(json.loads(text))


def record(kind: str) -> Callable[[type[R]], type[R]]:
    """Register a record class under `kind` (apply above `@dataclass`)."""

    def register(cls: type[R]) -> type[R]:
        if kind in _KINDS and _KINDS[kind].__qualname__ != cls.__qualname__:
            raise RecordError(f"record kind {kind!r} is already taken by {_KINDS[kind].__name__}")
        cls.kind = kind
        _KINDS[kind] = cls
        return cls

    return register


def record_kinds() -> dict[str, type[Record]]:
    """Every registered kind and its class."""
    return dict(_KINDS)


_PLAIN = frozenset({str, int, float, bool, type(None)})
_Plan = tuple[str | None, tuple[tuple[str, bool], ...]]
_PLANS: dict[type, _Plan] = {}
"""Dataclass -> its kind (None: not a record) and the fields it writes, each with whether it is
left out when empty: worked out once per class, since every hook encodes records (its journal
line, the session's snapshot)."""


def _plan(cls: type) -> _Plan:
    fields = tuple(
        (f.name, bool(f.metadata.get("omit_empty")))
        for f in dataclasses.fields(cls)
        if not f.metadata.get("transient")
    )
    plan = (cls.kind if issubclass(cls, Record) else None, fields)
    _PLANS[cls] = plan
    return plan


def encode(value: Any) -> Any:
    """Turn a record (or any value made of records, tuples, dicts, datetimes) into JSON data."""
    cls = type(value)
    if cls in _PLAIN:
        return value
    if cls is tuple or cls is list:
        return [encode(v) for v in value]
    plan = _PLANS.get(cls)
    if plan is None:
        if isinstance(value, str | int | float | bool):
            return value
        if isinstance(value, datetime):
            return value.isoformat()
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            plan = _plan(cls)
    if plan is not None:
        kind, fields = plan
        out: dict[str, Any] = {} if kind is None else {"kind": kind}
        for name, omit_empty in fields:
            item = getattr(value, name)
            if omit_empty and not item:
                continue  # a field added later: records without it read and write as before
            out[name] = encode(item)
        return out
    if isinstance(value, frozenset | set):
        return sorted((encode(v) for v in value), key=repr)
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    raise RecordError(f"cannot encode a {type(value).__name__} value")


def decode_record(data: Any) -> Record:
    """Build the record a `kind`-tagged dict describes."""
    if not isinstance(data, dict):
        raise RecordError(f"a record must be a JSON object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = _KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RecordError(f"unknown record kind {kind!r}; known: {', '.join(sorted(_KINDS))}")
    value = _decode_dataclass(cls, data)
    assert isinstance(value, Record)
    return value


def decode_as(cls: type[T], data: dict[str, Any]) -> T:
    """A plain dataclass value (one without a `kind`) from the JSON data `encode` made of it."""
    value: T = _decode_dataclass(cls, data)
    return value


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _decode_dataclass(cls: type, data: dict[str, Any]) -> Any:
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data or not f.init:
            continue
        try:
            kwargs[f.name] = _decode(hints[f.name], data[f.name])
        except (TypeError, ValueError, KeyError) as exc:
            raise RecordError(f"field {f.name!r} of {cls.__name__}: {exc}") from exc
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise RecordError(f"{cls.__name__}: {exc}") from exc


def _decode(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    if hint is datetime:
        return parse_time(value)
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return _decode(options[0], value) if len(options) == 1 else value
    if origin is tuple:
        args = typing.get_args(hint)
        return tuple(_decode(args[0], v) for v in value) if args else tuple(value)
    if origin is frozenset:
        args = typing.get_args(hint)
        return frozenset(_decode(args[0], v) for v in value)
    if origin is dict:
        args = typing.get_args(hint)
        return {k: _decode(args[1], v) for k, v in value.items()} if args else dict(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, dict):
        if issubclass(hint, Record) and "kind" in value:
            return decode_record(value)
        return _decode_dataclass(hint, value)
    return value
