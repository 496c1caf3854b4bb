"""`--json` text: `indented_json` prints what `json.dumps(indent=2)` prints, byte for byte."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from onlooker.cli.replay import indented_json

TEXT = "".join(chr(i) for i in range(0x80)) + "\u2028\u2029\u00e9\u20ac\U0001f600\x7f"


@pytest.mark.parametrize(
    "data",
    [
        {"text": TEXT, "empty": [], "none": {}, "null": None, "yes": True, "no": False},
        {"numbers": [0, -3, 10**30, 1.5, 0.1, 1e16, 1e-7, -0.0, 5e-324, 1e300]},
        {"nested": [{"a": [[], [{}], {"b": ["c", 1]}]}], "": "", 'key "q"': "\\\\"},
        [],
        {},
        "text",
        {"nan": math.nan, "inf": [math.inf, -math.inf]},  # not JSON: left to `json`
        {"lone": "\ud800 and \udfff"},  # not UTF-8: left to `json`
    ],
)
def test_indented_json_is_json_dumps_with_an_indent(data: Any) -> None:
    assert indented_json(data) == json.dumps(data, indent=2, ensure_ascii=False)
