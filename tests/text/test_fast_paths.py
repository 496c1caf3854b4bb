"""The shortcuts that make redaction fast find what the plain way finds: the needle gate against
`needle in text`, patterns opened by their keywords against the pattern as written, runs of
letters and digits against a pattern, prefixed tokens searched from long runs against `sub`."""

from __future__ import annotations

import random
import re
import string
import sys
from pathlib import Path

import pytest

from onlooker.text import code_literals, random_tokens
from onlooker.text._shape import alnum_run, keywords_first, mark
from onlooker.text.literal_starts import SEARCHED
from onlooker.text.needle_gate import NeedleGate
from onlooker.text.redact import SHAPES
from onlooker.text.rule_set import load_rules

sys.path.insert(0, str(Path(__file__).parent))
import families_corpus

NEEDLES = sorted({needle for shape in SHAPES for needle in shape.needles})
CORPUS = [case.text for case in families_corpus.CASES] + [c.text for c in families_corpus.CONTROLS]
#: Characters that match an ASCII letter only when case is ignored.
ODD_CASES = "\u017f\u0131\u0130\u212a"


def _fuzz(seed: int, count: int) -> list[str]:
    """Texts made of pieces of needles, odd letters, separators and words."""
    rnd = random.Random(seed)
    pieces = [*NEEDLES, *(n[: len(n) // 2] for n in NEEDLES), *(n.upper() for n in NEEDLES)]
    pieces += [" ", "\n", "-", "_", ".", ":", "=", "é", *ODD_CASES, "word", "x" * 70]
    return ["".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 40))) for _ in range(count)]


def test_the_needle_gate_finds_what_a_search_for_each_needle_finds() -> None:
    gate = NeedleGate(NEEDLES)
    for text in CORPUS + _fuzz(1, 3000):
        lowered = text.lower()
        assert gate.present(lowered) == {n for n in NEEDLES if n in lowered}, text
        # Again, from what it remembered of the runs it saw.
        assert gate.present(lowered) == {n for n in NEEDLES if n in lowered}, text


def test_the_shapes_opened_are_those_of_the_needles_present() -> None:
    gate = NeedleGate(NEEDLES)
    gates = {
        n: frozenset(i for i, shape in enumerate(SHAPES) if n in shape.needles) for n in NEEDLES
    }
    for text in CORPUS + _fuzz(5, 2000):
        lowered = text.lower()
        present = {n for n in NEEDLES if n in lowered}
        assert gate.opened(lowered, gates) == frozenset().union(*(gates[n] for n in present))


def test_the_words_the_gate_calls_absent_are_not_in_the_text() -> None:
    words = {w: max(re.findall(r"[a-z0-9_]+", w), key=len) for w in SEARCHED}
    gate = NeedleGate([*NEEDLES, *words])
    told = missed = 0
    for text in CORPUS + _fuzz(7, 2000) + [w.upper() + " x" for w in words]:
        lowered = text.lower()
        found = gate.opened_and_words(lowered, {n: frozenset() for n in gate.needles})[1]
        absent = gate.absent(lowered, found, words)
        assert not [w for w in absent if w in lowered], text
        told += len(absent)
        missed += sum(w not in lowered for w in words) - len(absent)
    assert told > 20 * missed  # most absent words are told absent


def test_a_text_of_new_runs_is_gated_as_one() -> None:
    gate = NeedleGate(NEEDLES)
    text = " ".join(f"w{i}x" for i in range(2000)) + " password glpat-"
    assert {"pass", "password", "glpat-"} <= gate.present(text)


def test_patterns_opened_by_keywords_match_as_written() -> None:
    pattern = r"(?i)(?:seed|key phrase|looker)[ \t]*[:=][ \t]*(?P<v>\w{4,})"
    fast = re.compile(keywords_first(pattern))
    assert fast.pattern != pattern
    texts = CORPUS + _fuzz(2, 300) + [f"{c}eed: abcd1234 {c}ey phrase=Zz99" for c in ODD_CASES]
    for text in texts:
        assert [m.groupdict() for m in fast.finditer(text)] == [
            m.groupdict() for m in re.finditer(pattern, text)
        ]


def test_patterns_opened_by_a_boundary_and_a_keyword_match_as_written() -> None:
    pattern = r"(?i)\bbearer\s+(\S{8,})"
    fast = re.compile(keywords_first(pattern))
    assert fast.pattern != pattern
    texts = ["xbearer abcdefghij", "Bearer abcdefghij", "_BEARER abcdefghij", "-bearer abcdefghij"]
    for text in texts + [f"{c}earer abcdefghij" for c in "\u017fB"] + CORPUS:
        assert [m.span() for m in fast.finditer(text)] == [
            m.span() for m in re.finditer(pattern, text)
        ]


def test_patterns_opened_by_a_lookbehind_and_keywords_match_as_written() -> None:
    cases = {
        r"(?i)(?<![\w-])(?:password|pwd)[ \t]*=[ \t]*([^;]{1,20})(?=;)": "Server=x;Password=ab;",
        r"(?i)\b(?:https?|wss?)://(?P<host>[^/\s]{1,40})": "HTTPS://a.b xhttp://c.d -ws://e.f",
    }
    for pattern, sample in cases.items():
        fast = re.compile(keywords_first(pattern))
        assert fast.pattern != pattern
        texts = [sample, "-" + sample, "x" + sample, sample.replace("s", "\u017f")]
        for text in texts + CORPUS:
            assert [(m.span(), m.groups()) for m in fast.finditer(text)] == [
                (m.span(), m.groups()) for m in re.finditer(pattern, text)
            ]


def test_patterns_with_optional_keywords_are_left_as_written() -> None:
    for pattern in (r"(?i)(?<![\w-])(?:proxy-)?authorization", r"(?i)(?:s?ftp|ssh)://"):
        assert keywords_first(pattern) == pattern


def test_most_keyword_rules_of_the_rule_set_are_opened_by_their_keywords() -> None:
    assert sum(rule.compiled.pattern[0] == "[" for rule in load_rules()) > 50


@pytest.mark.parametrize("rule", [r for r in load_rules() if r.compiled.pattern[0] == "["])
def test_each_rule_opened_by_its_keywords_matches_as_written(rule) -> None:  # type: ignore[no-untyped-def]
    from onlooker.text.rule_set import _literal_first, _without_name_prefix, translate

    written = re.compile(_literal_first(translate(_without_name_prefix(rule.pattern))))
    samples = [k + sep + value for k in rule.keywords for sep in ("=", ": ", "_KEY = '")
               for value in ("a" * 20, "Ab1" * 12, "0123456789abcdef" * 3)]  # fmt: skip
    for text in samples + [s.upper() for s in samples] + CORPUS:
        assert [m.span() for m in rule.compiled.finditer(text)] == [
            m.span() for m in written.finditer(text)
        ]


def test_patterns_with_a_bar_outside_groups_are_left_as_written() -> None:
    pattern = r"(?i)(?:seed)x|y"
    assert keywords_first(pattern) == pattern


def test_a_run_of_letters_and_digits_is_found_as_a_pattern_finds_it() -> None:
    odd = ["a" * 29 + "-" + "b" * 29, "é" + "Ab1" * 10, "\ud800" + "a" * 30]
    for text in [*_fuzz(3, 500), *odd]:
        for length in (20, 30, 51):
            expected = re.search(f"[A-Za-z0-9]{{{length}}}", text) is not None
            assert alnum_run(text, length) == expected


def test_prefixed_tokens_are_found_as_one_pattern_over_the_text_finds_them() -> None:
    def written(text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            token = match.group("v")
            if match.group(0).startswith(("pk_", "pk-")):
                return match.group(0)
            if random_tokens._random(token) and random_tokens.entropy(token) >= 4.0:
                return mark("prefixed_token")
            if random_tokens._named_hex(text, match.start(), match.group(0), token):
                return mark("prefixed_token")
            return match.group(0)

        return random_tokens._PREFIXED.sub(replace, text)

    rnd = random.Random(4)

    def token() -> str:
        return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(40))

    pieces = ["ak", "live", "phx", "_", "-", " ", "\n", "x" * 25, "a1" * 20]
    texts = ["".join(rnd.choice([*pieces, token()]) for _ in range(20)) for _ in range(2000)]
    changed = 0
    for text in texts + CORPUS:
        assert random_tokens.redact_prefixed_tokens(text, text.lower()) == written(text)
        changed += written(text) != text
    assert changed > 50


def test_random_tokens_are_found_as_one_pattern_over_the_text_finds_them() -> None:
    def written(text: str) -> str:
        pieces, done = [], 0
        for found in random_tokens._TOKEN.finditer(text):
            token = found.group(0).rstrip(".=-")
            if not random_tokens._random(token):
                continue
            if random_tokens.already_redacted(text[max(0, found.start() - 11) : found.end()]):
                continue
            line = max(text.rfind("\n", 0, found.start()) + 1, found.start() - 60)
            before = text[line : found.start()]
            if (
                not random_tokens._CREDENTIAL_WORDS.search(before)
                or random_tokens._DIGEST_BEFORE.search(before)
                or "://" in before[-12:]
            ):
                continue
            around = text[max(0, found.start() - 600) : found.end() + 600]
            if random_tokens._JWK_PUBLIC.search(before) and "kty" in around:
                continue  # a JSON Web Key's public member
            pieces.append(text[done : found.start()] + mark("random_token"))
            done = found.start() + len(token)
        return "".join(pieces) + text[done:] if pieces else text

    rnd = random.Random(6)

    def token() -> str:
        size = rnd.randint(15, 45)
        return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(size))

    pieces = ["key", "Pat", "compat", "secret", " ", "\n", "sha256:", "=", "://", "x" * 30]
    texts = ["".join(rnd.choice([*pieces, token()]) for _ in range(15)) for _ in range(3000)]
    changed = 0
    for text in texts + CORPUS:
        assert random_tokens.redact_random_tokens(text, text.lower()) == written(text)
        changed += written(text) != text
    assert changed > 200


@pytest.mark.parametrize(
    "call",
    [
        *(f'{name}("DB_PASSWORD", "hunter2secret")' for name in (
            "getenv", "os.environ.get", "env.get", "getEnv", "GetEnv", "env", "ENV.fetch",
            "Getenv", "getenv_or", "env_or", "config", "define",
        )),
        'ENV.fetch("DB_PASSWORD") { "hunter2secret" }',
        'process.env.DB_PASSWORD || "hunter2secret"',
        "process.env['DB_PASSWORD'] ?? 'hunter2secret'",
    ],
)  # fmt: skip
def test_every_call_with_a_default_passes_the_check_before_its_pattern(call: str) -> None:
    assert code_literals.redact_env_defaults(call, call.lower()) != call


def test_digest_words_found_from_where_they_can_start_as_by_the_pattern() -> None:
    """`_digest_before` tries `_DIGEST_BEFORE` only from where its word can start (before the
    run of spaces, quotes, `:` and `=` at the end); `_credential_word` reads ASCII lowercased."""
    rnd = random.Random(9)
    words = ["sha256:", "SHA1=", "integrity", "Checksum", "digest", "hash", "h1:", "md5", "pub",
             "fingerprint", "commit", "public", "iVBOR", "base64,", "ſha1-", "K", "pat", "key"]  # fmt: skip
    tails = [" ", "\t", "\n", "\u00a0", "\u2003", '"', "'", ":", "=", "x", "-", "é", "_"]
    for _ in range(20_000):
        before = "".join(
            rnd.choice(words) if rnd.random() < 0.3 else rnd.choice(tails)
            for _ in range(rnd.randint(0, 12))
        )
        expected = random_tokens._DIGEST_BEFORE.search(before) is not None
        assert random_tokens._digest_before(before) == expected, before
        credential = random_tokens._CREDENTIAL_WORDS.search(before) is not None
        assert random_tokens._credential_word(before) == credential, before
