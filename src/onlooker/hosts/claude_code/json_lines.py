"""One transcript line decoded, fast: msgspec's JSON decoder, with `json.loads` for the lines only
the standard library takes (lone surrogate escapes, NaN and Infinity, numbers past a float, a
byte-order mark), so every line reads as `json.loads` reads it, only faster.

msgspec keeps integers of any size exact, as `json.loads` does (orjson would turn them into floats).
`decode_line` decodes only the fields the transcript reader uses, into a `Line` (specs/replay.md).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

_decode = msgspec.json.Decoder().decode


def loads(raw: str | bytes) -> Any:
    """The JSON value of `raw`; ValueError (as `json.loads` raises) when it is not JSON."""
    try:
        return _decode(raw)
    except ValueError:  # msgspec.DecodeError: not JSON to msgspec; json.loads has the last word
        return json.loads(raw)


class Message(msgspec.Struct):
    """The `message` of a transcript line: what the reader takes of it."""

    id: Any = None
    content: Any = None


class Line(msgspec.Struct):
    """A transcript line's fields that the reader uses (by their names in the file); the rest is
    skipped while decoding."""

    type: Any = None
    sessionId: Any = None
    cwd: Any = msgspec.UNSET
    """UNSET when the line has none (a line with `"cwd": null` starts the session too)."""
    timestamp: Any = None
    uuid: Any = None
    isSidechain: Any = None
    isMeta: Any = None
    isCompactSummary: Any = None
    message: Any = None
    """A Message, or the value as it was when it is not an object (a malformed line)."""
    toolUseResult: Any = None


class _TypedLine(Line):
    message: Message | None = None


_decode_line = msgspec.json.Decoder(_TypedLine).decode
_FIELDS = Line.__struct_fields__


def decode_line(raw: str | bytes) -> Line | None:
    """The reader's fields of a transcript line, as `loads` would give them; None when the line
    is JSON but not an object; ValueError when it is not JSON."""
    try:
        if type(raw) is bytes and not raw.isascii():
            raw.decode()  # msgspec passes over bad UTF-8 in the fields it skips; json.loads not
        return _decode_line(raw)
    except ValueError:  # not JSON to msgspec, not an object, a `message` that is not one, bad UTF-8
        data = loads(raw)
    if type(data) is not dict:
        return None
    line = Line(**{name: data[name] for name in _FIELDS if name in data})
    if type(line.message) is dict:
        line.message = Message(line.message.get("id"), line.message.get("content"))
    return line
