"""Transcript lines decode as `json.loads` decodes them (hosts/claude_code/json_lines.py), the
lines msgspec refuses included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from msgspec import UNSET

from onlooker.hosts.claude_code.json_lines import Message, decode_line, loads
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


def as_loaded(data: dict[str, object]) -> dict[str, object]:
    """What the reader takes of a line decoded by `json.loads`."""
    message = data.get("message")
    if isinstance(message, dict):
        message = ("Message", message.get("id"), message.get("content"))
    return {
        "type": data.get("type"),
        "sessionId": data.get("sessionId"),
        "cwd": data.get("cwd", UNSET),
        "timestamp": data.get("timestamp"),
        "uuid": data.get("uuid"),
        "isSidechain": data.get("isSidechain"),
        "isMeta": data.get("isMeta"),
        "isCompactSummary": data.get("isCompactSummary"),
        "message": message,
        "toolUseResult": data.get("toolUseResult"),
    }


def as_decoded(raw: str | bytes) -> dict[str, object] | None:
    line = decode_line(raw)
    if line is None:
        return None
    fields = {name: getattr(line, name) for name in line.__struct_fields__}
    if type(line.message) is Message:
        fields["message"] = ("Message", line.message.id, line.message.content)
    return fields


def test_every_real_transcript_line_gives_the_fields_json_loads_gives(fixtures: Path) -> None:
    count = 0
    for path in sorted((fixtures / "claude-code").rglob("*.jsonl")):
        for raw in path.read_bytes().splitlines():
            if raw.strip():
                count += 1
                assert as_decoded(raw) == as_loaded(json.loads(raw)), (path, raw[:200])
    assert count > 1000


@pytest.mark.parametrize(
    "raw",
    [
        *SAME,
        b'{"type":"user","message":"not an object","cwd":null}',
        b'{"type":"user","message":null}',
        b'{"type":"user","message":[1],"sessionId":7}',
        b'{"type":"assistant","message":{"id":1,"content":[]},"n":NaN}',
        b'{"type":"user","message":{"content":"a"},"message":{"content":"b"}}',
        '{"type":"user","message":{"content":"\u00e9 \u2713"}}'.encode(),
    ],
)
def test_a_line_msgspec_types_differently_gives_the_fields_json_loads_gives(
    raw: str | bytes,
) -> None:
    assert as_decoded(raw) == as_loaded(json.loads(raw))


@pytest.mark.parametrize("raw", [b"[1, 2]", b'"text"', b"12", b"null"])
def test_json_that_is_no_object_is_none(raw: bytes) -> None:
    assert decode_line(raw) is None


@pytest.mark.parametrize(
    "raw", [*NOT_JSON, b'{"type":"user","message":{"content":"hi"},"skipped":"\xff"}']
)
def test_what_is_not_json_is_a_value_error(raw: bytes) -> None:
    with pytest.raises(ValueError):
        decode_line(raw)
