"""Text made encodable (text/encodable.py): lone surrogates become U+FFFD, split pairs their
character, everywhere in JSON-like data and records; clean data comes back as the same object."""

from __future__ import annotations

import json
from collections import namedtuple
from types import MappingProxyType

import pytest

from onlooker import Assessment, Finding, ToolCall
from onlooker.text.encodable import encodable, encodable_text

FFFD = "\ufffd"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("é – 中文 😀", "é – 中文 😀"),
        ("a\ud800b", f"a{FFFD}b"),  # a lone high surrogate
        ("a\udc00b", f"a{FFFD}b"),  # a lone low one
        ("\udcff\udcfe", FFFD * 2),  # bytes that were not UTF-8, decoded with surrogateescape
        ("\ud83d\ude00!", "😀!"),  # a pair split in two code points: the character it stands for
        ("\ude00\ud83d", FFFD * 2),  # the halves the wrong way round
        ("\ud800\ud800\udc00", f"{FFFD}\U00010000"),
    ],
)
def test_encodable_text(text: str, expected: str) -> None:
    cleaned = encodable_text(text)
    assert cleaned == expected
    cleaned.encode("utf-8")  # never raises


def test_json_like_data_keys_included() -> None:
    data = json.loads('{"a\\ud800": ["x", "\\udfff", {"n": 1, "t": [true, null, 2.5]}]}')
    assert encodable(data) == {f"a{FFFD}": ["x", FFFD, {"n": 1, "t": [True, None, 2.5]}]}
    assert encodable(MappingProxyType({"k": "\ud800"})) == {"k": FFFD}
    Pair = namedtuple("Pair", "left right")
    assert encodable(Pair("\ud800", 1)) == Pair(FFFD, 1)


def test_clean_data_is_not_copied() -> None:
    data = {"a": ["b", {"c": ("d", 1)}], "e": "中文"}
    assert encodable(data) is data
    call = ToolCall(call_id="c1", tool="Bash", input={"command": "ls"}, output="ok")
    assert encodable(call) is call


def test_records_and_what_they_hold() -> None:
    call = ToolCall(call_id="c1", tool="Bash", input={"command": "echo \ud800"}, output="\udcff")
    assert encodable(call) == ToolCall(
        call_id="c1", tool="Bash", input={"command": f"echo {FFFD}"}, output=FFFD
    )
    assessment = Assessment(
        observer_name="x", summary="s\ud800", findings=(Finding(content="f\udc00", observer="x"),)
    )
    cleaned = encodable(assessment)
    assert (cleaned.summary, cleaned.findings[0].content) == (f"s{FFFD}", f"f{FFFD}")
    cleaned.to_json().encode("utf-8")
