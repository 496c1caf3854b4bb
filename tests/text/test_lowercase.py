"""`folding.lowercase` is `str.lower` (the redactor's lowercase of every text, made faster for
texts whose characters past ASCII lowercase to themselves)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from onlooker.text.folding import lowercase

ROOT = Path(__file__).resolve().parents[2]
#: ASCII, characters past it that lowercase to themselves, and ones that do not (`É`, `ß`,
#: `İ` whose lowercase is two, `ı`, `ſ`, the Kelvin sign, `Σ` whose lowercase depends on its
#: neighbours, Cherokee, Deseret past the BMP), a lone surrogate, an emoji.
_ALPHABET = (
    "aZ09 _-\n\t:=\"'" "\u2014\u2192\u2264\u00d7\u00a0\u4e2d"
    "\u00c9\u00df\u0130\u0131\u017f\u212a\u03a3\u03c3\u13a0\U00010400"
    "\ud800\U0001f600"
)  # fmt: skip


def test_lowercase_is_str_lower_on_the_corpora_and_the_specs() -> None:
    texts = [path.read_text() for path in sorted((ROOT / "specs").glob("*.md"))]
    for name in ("secrets.json", "controls.json"):
        cases = json.loads((ROOT / "tests" / "fixtures" / "redaction" / name).read_text())
        texts += [case["text"] for case in cases]
    for text in texts:
        assert lowercase(text) == text.lower()
    assert any(not text.isascii() for text in texts)


def test_lowercase_is_str_lower_on_random_texts() -> None:
    rnd = random.Random(26)
    fast = 0
    for _ in range(20_000):
        # mostly texts with one kind of character past ASCII, so each path is taken
        chars = _ALPHABET[: 14 + rnd.randrange(len(_ALPHABET) - 13)]
        text = "".join(rnd.choice(chars) for _ in range(rnd.randrange(40)))
        assert lowercase(text) == text.lower(), repr(text)
        others = "".join(c for c in text if not c.isascii())
        fast += bool(others) and others.lower() == others
    assert fast > 1000  # the bytes' way was taken, and checked
