"""The front's JSON (mcp/quick_json.py) against `json` itself: the same values, the same text and
the same errors, for what clients send, for random documents and for broken and odd input."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest

from onlooker.mcp import quick_json
from onlooker.mcp.front import LISTING_FILE

ODD_INPUTS: list[bytes | str] = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    b' \n\t{"a":[1,2.5,-3e10,true,false,null,"x\\u00e9\\ud800"]}\r\n',
    b'{"a": NaN, "b": -Infinity, "c": Infinity}',
    b'{"big": 123456789012345678901234567890, "a": 1, "a": 2}',
    '{"k": "\u00e9\u4e2d"}'.encode(),
    '{"k": "\u00e9"}',
    b"123",
    b'"text"',
    b'{"a":1} trailing',
    b'{"a":1}{"b":2}',
    b"",
    b"  \n",
    b"\xef\xbb\xbf{}",
    "\ufeff{}",
    '{"a": 1}'.encode("utf-16"),
    '{"a": 1}'.encode("utf-16-le"),
    '{"a": 1}'.encode("utf-32-be"),
    b'"\xff\xfe"',
    b'{"a" 1}',
    b"[1,]",
    b'{"a": "\x01"}',
    b'"\\ud800\\udc00"',
    b"[" * 100_000,
]


def outcome(parse: Any, data: bytes | str) -> tuple[str, str]:
    """What parsing `data` gives: the value (as canonical JSON) or the error and its message."""
    try:
        return "value", json.dumps(parse(data), sort_keys=True)
    except Exception as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("data", ODD_INPUTS, ids=range(len(ODD_INPUTS)))
def test_odd_and_broken_input_parses_or_fails_as_json_loads(data: bytes | str) -> None:
    assert outcome(quick_json.loads, data) == outcome(json.loads, data)


def document(rng: random.Random, depth: int = 0) -> Any:
    kinds = 8 if depth < 4 else 5
    kind = rng.randrange(kinds)
    if kind == 0:
        return rng.randint(-(10**20), 10**20)
    if kind == 1:
        return rng.random() * 10 ** rng.randint(-8, 8)
    if kind == 2:
        return "".join(chr(rng.choice([rng.randrange(0x20, 0x7F), rng.randrange(0x80, 0x3000),
                                       rng.randrange(0xD800, 0xE000), 0x2028, ord('"'), ord("\\")]))
                       for _ in range(rng.randrange(8)))  # fmt: skip
    if kind == 3:
        return rng.choice([None, True, False])
    if kind == 4:
        return rng.choice(["", "\n\t", "/"])
    if kind == 5:
        return [document(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {document(rng, 4) if rng.random() < 0.9 else "k": document(rng, depth + 1)
            for _ in range(rng.randrange(4)) if True}  # fmt: skip


def test_random_documents_give_the_same_text_and_values() -> None:
    rng = random.Random(31)
    for _ in range(3000):
        value = document(rng)
        if isinstance(value, dict):
            value = {str(key): item for key, item in value.items()}
        expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        assert quick_json.dumps(value) == expected
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]))
        for data in (text, text.encode("utf-8", "surrogatepass")):
            assert outcome(quick_json.loads, data) == outcome(json.loads, data)
        cut = text[: rng.randrange(len(text) + 1)]
        assert outcome(quick_json.loads, cut) == outcome(json.loads, cut)


def test_the_listing_reads_and_writes_back_as_json_does() -> None:
    with open(LISTING_FILE, encoding="utf-8") as file:
        text = file.read()
    assert quick_json.loads(text) == json.loads(text)
    listing = json.loads(text)
    assert quick_json.dumps(listing) == json.dumps(
        listing, ensure_ascii=False, separators=(",", ":")
    )


def test_json_itself_is_not_imported() -> None:
    """The point of the module: `json` (and `re`, which it brings) stays out of the front."""
    code = "import onlooker.mcp.quick_json as q, sys; q.loads(b'{\"a\": [1]}'); q.dumps({'a': 1});"
    code += "print('json' in sys.modules, 're' in sys.modules, q._C is not None)"
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["False", "False", "True"], done.stderr
