"""Transcript lines decode as `json.loads` decodes them (hosts/claude_code/json_lines.py), the
lines msgspec refuses included."""

from __future__ import annotations

import json

import pytest

from onlooker.hosts.claude_code.json_lines import loads
from onlooker.hosts.claude_code.transcript import Tally, iter_claude_code

SAME = [
    b'{"type":"user","n":1}',
    b'{"a":1,"a":2}',  # the last duplicate wins
    b'{"big":123456789012345678901234567890,"neg":-98765432109876543210}',  # exact, not floats
    b'{"f":1.0000000000000002,"e":1.5E3,"tiny":1E-400,"z":-0.0}',
    b'{"s":"\\ud83d\\ude00 \\u00e9 \\u0000"}',
    '{"text":"é ✓"}',
    b'  {"padded": true}  \n',
    # only json.loads takes these: lone surrogates, NaN and Infinity, overflow, a byte-order mark
    b'{"lone":"\\ud800 and \\udfff"}',
    b'{"n":NaN,"i":Infinity,"m":-Infinity}',
    b'{"huge":1e400}',
    b'\xef\xbb\xbf{"bom":1}',
]
NOT_JSON = [b"", b"   ", b"{", b"[1,]", b'{"a":1}{', b'{"a":"\xff"}', b"not json"]


@pytest.mark.parametrize("line", SAME)
def test_a_line_decodes_as_json_loads_decodes_it(line: str | bytes) -> None:
    got, want = loads(line), json.loads(line)
    assert repr(got) == repr(want)  # repr: NaN is not equal to itself, types must match
    assert [type(v) for v in got.values()] == [type(v) for v in want.values()]


@pytest.mark.parametrize("line", NOT_JSON)
def test_what_json_loads_refuses_is_refused_with_a_value_error(line: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(line)
    with pytest.raises(ValueError):
        loads(line)


def test_a_transcript_line_only_json_loads_takes_is_read_not_malformed() -> None:
    lines = [
        b'{"type":"user","sessionId":"s","cwd":"/p","timestamp":"2026-01-01T00:00:00Z",'
        b'"message":{"content":"fix the \\ud800 bug, NaN aside"},"n":NaN}\n',
        b"{torn\n",
    ]
    tally = Tally()
    events = list(iter_claude_code(lines, tally=tally))
    assert [e.kind for e in events] == ["session_started", "user_prompt"]
    assert events[1].text == "fix the \ud800 bug, NaN aside"
    assert (tally.malformed, tally.malformed_lines) == (1, [2])
