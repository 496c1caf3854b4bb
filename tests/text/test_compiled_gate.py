"""The compiled gate (text/compiled_gate.py, `ahocorasick_rs`) answers as the pure-Python gate:
the same shapes opened and every searched word where `str.find` finds it, so `redact` gives the
same output with it and without it, on the corpora, onlooker's code and specs, a transcript and
random texts; and the hook client's spool, loaded by path under `python -I -S` where the package
cannot be imported, redacts exactly as the service does with it."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import families_corpus
import pytest
from carriers import hook_input
from test_fast_paths import _fuzz
from test_literal_starts import TEXTS

import onlooker
from onlooker.text import literal_starts, spooled
from onlooker.text.literal_starts import SEARCHED
from onlooker.text.needle_gate import NeedleGate
from onlooker.text.redact import _GATED, COMPILED_GATE, redact
from onlooker.text.rule_set import load_rules

ROOT = Path(__file__).resolve().parents[2]


def _bench_pieces() -> list[str]:
    """The 10 kB pieces benchmarks/bench_redact.py times: onlooker's code, specs, a transcript."""
    code = "\n".join(
        path.read_text() for path in sorted((ROOT / "src" / "onlooker").rglob("*.py"))
        if "text" not in path.parts
    )  # fmt: skip
    prose = "\n".join(path.read_text() for path in sorted((ROOT / "specs").glob("*.md")))
    transcript = (ROOT / "examples" / "transcripts" / "flaky-tests.jsonl").read_text()
    return [
        text[at : at + 10_000]
        for text in (code, prose, transcript)
        for at in range(0, min(len(text), 300_000), 10_000)
    ]


PIECES = _bench_pieces()
RULES = load_rules()


@contextmanager
def pure_gate() -> Iterator[None]:
    """`redact` with the compiled gate put aside: the pure-Python gate and `str.find`."""
    was = COMPILED_GATE.enable(False)
    try:
        yield
    finally:
        COMPILED_GATE.enable(was)


def test_the_compiled_gate_is_installed_and_used() -> None:
    assert COMPILED_GATE.available
    assert COMPILED_GATE.scan("password") is not None
    with pure_gate():
        assert not COMPILED_GATE.available and COMPILED_GATE.scan("password") is None


def _find_all(lowered: str, word: str) -> tuple[int, ...]:
    found = []
    at = lowered.find(word)
    while at != -1:
        found.append(at)
        at = lowered.find(word, at + 1)
    return tuple(found)


def test_it_opens_what_the_pure_gate_opens_and_finds_every_word_where_find_does() -> None:
    gate = NeedleGate([*_GATED])
    texts = [*TEXTS, *PIECES, *_fuzz(3, 1500), "ſecret \u0130 k\u212aey é pass", "aaaa" * 9]
    for text in PIECES:  # the words the shapes ask for (rules' first words) join the searched
        redact(text)
    assert len(literal_starts.WANTED) > 50
    for text in texts:
        lowered = text.lower()
        scanned = COMPILED_GATE.scan(lowered)
        assert scanned is not None, text
        opened, known = scanned
        assert opened == gate.opened(lowered, _GATED), text
        assert set(SEARCHED) <= set(known), text
        for word, starts in known.items():
            assert starts == _find_all(lowered, word), (word, text)
    # by now the automaton was built anew with the words the shapes asked for
    wanted = {word for word in literal_starts.WANTED if len(word) > 1}
    for _ in range(40):
        scanned = COMPILED_GATE.scan("key")
    assert scanned is not None and wanted - set(SEARCHED) and wanted <= set(scanned[1])


def test_a_text_the_automaton_cannot_take_goes_to_the_pure_gate() -> None:
    text = "password is Zq8v!mR2pLx \ud800"
    assert COMPILED_GATE.scan(text.lower()) is None
    assert redact(text) == "password is [REDACTED:stated_password] \ud800"


def test_redaction_with_the_compiled_gate_equals_redaction_without_it() -> None:
    texts = [*TEXTS, *PIECES]
    texts += [json.dumps(hook_input(c.carrier, c.text, c.command)) for c in families_corpus.CASES]
    fast = [redact(text) for text in texts]
    assert sum(out != text for out, text in zip(fast, texts, strict=True)) > 300
    with pure_gate():
        plain = [redact(text) for text in texts]
    for text, quick, slow in zip(texts, fast, plain, strict=True):
        assert quick == slow, text


#: Run by `python -I -S`, as the installed hook: the client loads onlooker/text/ by path (its
#: `_redaction`), where `ahocorasick_rs` cannot be imported; each payload redacted as spooled.
_SPOOL_WITHOUT_THE_PACKAGE = """
import importlib.util, json, sys
sys.path.insert(0, sys.argv[1])
import client
spooled = client._redaction()
gate = sys.modules[client.TEXT_PACKAGE + ".redact"].COMPILED_GATE
assert importlib.util.find_spec("ahocorasick_rs") is None, "the package is importable"
assert not gate.available
payloads = json.loads(sys.stdin.read())
kept = [spooled.redact_payload(p.encode("utf-8", "surrogateescape")) for p in payloads]
print(json.dumps([k.decode("utf-8", "surrogateescape") for k in kept]))
"""


def test_the_spool_without_the_package_keeps_what_the_service_keeps_with_it() -> None:
    """Hook inputs of both corpora and texts that are not JSON (the text pass), through the
    client's spool redaction by path with the standard library only, against the same payloads
    redacted in this process with the compiled gate."""
    payloads = [json.dumps(hook_input(c.carrier, c.text, c.command)) for c in families_corpus.CASES]
    payloads += [json.dumps(hook_input(c.carrier, c.text)) for c in families_corpus.CONTROLS]
    payloads += [text for text in [*TEXTS, *PIECES] if "\\" in text or "{" not in text][:2500]
    assert COMPILED_GATE.available
    here = [
        spooled.redact_payload(p.encode("utf-8", "surrogateescape")).decode(
            "utf-8", "surrogateescape"
        )
        for p in payloads
    ]
    folder = Path(onlooker.__file__).parent / "daemon"
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _SPOOL_WITHOUT_THE_PACKAGE, str(folder)],
        input=json.dumps(payloads).encode(), capture_output=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    there = json.loads(done.stdout)
    assert sum(a != p for a, p in zip(here, payloads, strict=True)) > 300
    for payload, with_it, without_it in zip(payloads, here, there, strict=True):
        assert with_it == without_it, payload


@pytest.mark.parametrize("word", ["DB_PASS", "API_KEY", "AUTH_TOKEN"])
def test_words_found_after_marks_are_still_found_where_they_are(word: str) -> None:
    """After a shape replaces spans, `positions` searches the new text itself: a word's places
    from the text before the marks are not reused."""
    text = f"ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 then {word}=Zq8v!mR2pLx9"
    assert redact(text) == f"[REDACTED:github_token] then {word}=[REDACTED:assignment]"
    with pure_gate():
        assert redact(text) == f"[REDACTED:github_token] then {word}=[REDACTED:assignment]"


def _odd_texts() -> list[str]:
    """Texts whose lowercase is not alike them (`ſ`, `ı`, `İ`), where words are looked for in the
    text folded: the bench's pieces that are such, and corpus texts with odd letters put in."""
    odd = [p for p in PIECES if not literal_starts.lowered_alike(p, p.lower())]
    assert odd  # the redaction spec names them
    for at, text in enumerate(TEXTS[:1500]):
        letter = "\u017f\u0131\u0130\u212a"[at % 4]
        cut = at % max(1, len(text))
        swapped = text.replace("s", "\u017f", 1) if at % 3 == 0 else text
        odd.append(f"{swapped[:cut]}{letter}{swapped[cut:]}")
    return odd


def test_patterns_on_a_text_folded_find_what_they_find_as_written() -> None:
    """Each rule of the rule set and each pattern tried from its words (`sub_from_starts`) on
    texts not alike their lowercase, against the pattern over the whole text."""
    texts = _odd_texts()
    for text in PIECES:  # each pattern's words read from its parse on first use
        redact(text)
    patterns = [p for p, words in literal_starts._KNOWN_PREFIXES.items() if words]
    assert len(patterns) > 20
    changed = 0
    for text in texts:
        lowered = text.lower()
        for rule in RULES:
            assert rule.apply(text, lowered) == rule.compiled.sub(rule._replace, text), rule.id
        for pattern in patterns:
            replace = lambda m: f"<{m.group(0)}>"  # noqa: E731
            expected = pattern.sub(replace, text)
            assert literal_starts.sub_from_starts(pattern, replace, text, lowered) == expected
            found = list(literal_starts.finditer_from_starts(pattern, text, lowered))
            assert [m.span() for m in found] == [m.span() for m in pattern.finditer(text)]
            changed += expected != text
    assert changed > 100


def _edits(seed: int, texts: list[str]) -> Iterator[tuple[str, str]]:
    """Each text lowercased, and the same with a few spans replaced by marks, or cut, or grown
    (what a shape's replacement does), at its start, its end or anywhere."""
    rnd = random.Random(seed)
    for text in texts:
        before = text.lower()
        after = before
        for _ in range(rnd.randint(1, 4)):
            start = rnd.choice((0, len(after), rnd.randint(0, len(after))))
            end = min(len(after), start + rnd.choice((0, 1, 5, 40, 400)))
            mark = rnd.choice(("[redacted:assignment]", "", "pass", "x", "token=\u0131k"))
            after = after[:start] + mark + after[end:]
        yield before, after


def test_words_after_spans_are_replaced_are_where_a_new_scan_finds_them() -> None:
    """`words_after` (the words' places moved, and the changed stretch scanned) against a scan
    of the whole new text."""
    assert COMPILED_GATE.available
    count = 0
    for before, after in _edits(5, [*TEXTS[:2000], *PIECES, "ab", ""]):
        known = COMPILED_GATE.words(before)
        assert known is not None
        assert COMPILED_GATE.words_after(before, known, after) == COMPILED_GATE.words(after)
        count += before != after
    assert count > 1500
