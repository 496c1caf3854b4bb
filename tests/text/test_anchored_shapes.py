"""Shapes whose patterns open with a class or a common sign are tried only from a literal every
match holds (a bech32 key's `sec1`, an `_eyJ`, a Mailchimp key's `-us`, a password's word before
`)`, a command flag's lookbehind or its `@`): each finds what its pattern finds over the whole
text, on the corpora and on random texts built around those literals."""

from __future__ import annotations

import random
import re

import blind_corpus
import families_corpus

from onlooker.text import command_secrets, key_formats, prose_secrets, random_tokens
from onlooker.text._shape import whole_match
from onlooker.text.folding import holds
from onlooker.text.token_shapes import TOKEN_HINTS

_B32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_SEPARATORS = [" ", "\n", "-", "_", "A", "a", "9", "=", "/", "@", ":", "'", "", "\t", "(", ")"]


def _piece(rnd: random.Random) -> str:
    letters = "".join(
        rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.choice([0, 1, 2, 8, 9, 16, 17]))
    )
    kind = rnd.randrange(6)
    if kind == 0:  # bech32 secret keys, their names cut and cased every way
        name = rnd.choice(["sec", "secretkey", "priv", "prv", "privkey", "key", "nsec"])
        body = "".join(rnd.choice(_B32) for _ in range(rnd.choice([10, 37, 38, 39, 80])))
        text = letters + name + "1" + body
        return text.upper() if rnd.random() < 0.3 else text
    if kind == 1:  # tokens wrapping base64url JSON
        chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
        body = "".join(rnd.choice(chars) for _ in range(rnd.choice([10, 59, 60, 61, 100])))
        return letters + "_eyJ" + body + "=" * rnd.randrange(3)
    if kind == 2:  # Mailchimp keys and near misses
        hex_digits = "".join(
            rnd.choice("0123456789abcdefg") for _ in range(rnd.choice([31, 32, 40]))
        )
        return hex_digits + "-us" + str(rnd.randrange(100))
    if kind == 3:  # a password's word closing a parenthesis
        word = rnd.choice(["password", "pass", "key", "token", "secret", "creds", "word", "PIN"])
        return (
            rnd.choice(["(", "(the ", "(my admin ", "( ", ""]) + word + rnd.choice([")", "", " )"])
        )
    if kind == 4:  # command lines with flags found after a word or on a line holding `@`
        return rnd.choice(
            [
                "sqlplus scott/Tiger123@orcl",
                "sqlplus -s sys/pw@//h:1521/s",
                "vault login s3cretT0ken9x",
                "net user bob Pa55word!",
                "net use Z: \\\\srv\\share Pa55word!",
                "cf auth admin Pa55word!",
                "wpa_passphrase home Pa55word!",
                "smbclient //srv/share Pa55word!",
                "mc alias set local http://h:9000 admin Pa55word!",
                "login",
                "use",
                "user",
                "a/b@c",
            ]
        )
    return rnd.choice(_SEPARATORS) * rnd.randint(0, 3)


def _texts() -> list[str]:
    rnd = random.Random(26)
    texts = [case.text for case in families_corpus.CASES]
    texts += [control.text for control in families_corpus.CONTROLS]
    texts += [case.text for case in blind_corpus.CASES]
    for _ in range(3000):
        parts = [_piece(rnd) + rnd.choice(_SEPARATORS) for _ in range(rnd.randint(1, 8))]
        texts.append("".join(parts))
    return texts


TEXTS = _texts()


def test_keys_found_from_their_words_are_those_their_pattern_finds() -> None:
    changed = 0
    for text in TEXTS:
        for apply, pattern, kind in (
            (key_formats.redact_bech32_secrets, key_formats._BECH32_SECRET, "private_key"),
            (random_tokens.redact_prefixed_json, random_tokens._PREFIXED_JSON, "prefixed_token"),
        ):
            expected = pattern.sub(whole_match(kind), text)
            assert apply(text, text.lower()) == expected, text
            changed += expected != text
    assert changed > 300


def test_a_hint_found_from_its_literal_answers_as_its_pattern() -> None:
    hint = TOKEN_HINTS["mailchimp_key"]
    pattern = re.compile(r"[0-9a-f]{32}-us")
    found = 0
    for text in TEXTS:
        assert bool(hint.search(text)) == (pattern.search(text) is not None), text
        found += pattern.search(text) is not None
    assert found > 100


def test_a_phrasing_closed_by_its_word_finds_what_its_pattern_finds() -> None:
    closed = prose_secrets.NAMED_AFTER[1]
    assert isinstance(closed, prose_secrets.ClosedBy)
    found = 0
    for text in TEXTS:
        haystack = text.lower()
        expected = [m.span() for m in closed.pattern.finditer(haystack)]
        assert [m.span() for m in closed.finditer(haystack)] == expected, haystack
        found += len(expected)
    assert found > 100


def test_command_flags_found_from_their_words_or_lines_are_those_found_over_the_text() -> None:
    found = 0
    for _needles, _command, flags in command_secrets._COMPILED:
        for text in TEXTS:
            expected = [(m.span(), m.groups()) for m in flags.finditer(text)]
            quick = command_secrets._found_flags(flags, text, text.lower())
            assert [(m.span(), m.groups()) for m in quick] == expected, (flags.pattern, text)
            found += len(expected)
    assert found > 1000


def test_a_text_holds_the_needles_found_from_a_sign_as_those_searched_for() -> None:
    rnd = random.Random(3)
    cases = ((("<private", "<PRIVATE"), "<"), ((" >", "\t>"), ">"), (("${",), "$"))
    pieces = ["<", ">", "$", "{", " ", "\t", "private", "PRIVATE", "<priv", "é", "a", "${", " >"]
    texts = TEXTS + [
        "".join(rnd.choice(pieces) for _ in range(rnd.choice([20, 200, 1500]))) for _ in range(1500)
    ]
    held = 0
    for text in texts:
        for needles, sign in cases:
            expected = any(needle in text for needle in needles)
            assert holds(text, needles, sign) == expected, (needles, text)
            held += expected
    assert held > 1000
