"""One transcript line decoded, fast: msgspec's JSON decoder, with `json.loads` for the lines only
the standard library takes (lone surrogate escapes, NaN and Infinity, numbers past a float, a
byte-order mark), so every line reads as `json.loads` reads it, only faster.

msgspec keeps integers of any size exact, as `json.loads` does (orjson would turn them into floats).
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
