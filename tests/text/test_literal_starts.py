"""The fast paths of redaction give what the patterns as written give: each pattern tried only
where its first words start (literal_starts.py) against `finditer`/`sub` over the whole text, and
`redact` with every fast path against `redact` with every one put back to the plain way, on the
corpora, on onlooker's own code and specs, and on random text built from them."""

from __future__ import annotations

import collections
import json
import random
import re
import string
from collections.abc import Callable, Iterator
from pathlib import Path

import blind_corpus
import families_corpus
import pytest

from onlooker.text import (
    assignments,
    code_literals,
    config_lines,
    credential_lines,
    headers,
    key_formats,
    literal_starts,
    prose_secrets,
    random_tokens,
    rule_set,
    tables,
)
from onlooker.text import redact as redact_module
from onlooker.text.literal_starts import Started, literal_prefixes, positions, word_starts
from onlooker.text.redact import redact
from onlooker.text.rule_set import Rule, load_rules
from onlooker.text.secret_names import (
    KEY_QUALIFIERS,
    NAME_WORDS,
    SECRET_AFTER_ANY,
    SECRET_ENDINGS,
    SECRET_WORDS,
    is_secret_name,
)

ROOT = Path(__file__).resolve().parents[2]
STARTED = {
    "stated": credential_lines._STATED_STARTS,
    "env_default": code_literals._ENV_DEFAULT_STARTS,
    **{f"phrasing{i}": p for i, p in enumerate(prose_secrets.PHRASINGS)},
    **{
        f"named_after{i}": p
        for i, p in enumerate(prose_secrets.NAMED_AFTER)
        if isinstance(p, Started)
    },
    "secret_store": config_lines._SECRET_STORES,
}
CORPUS = [case.text for case in families_corpus.CASES] + [
    control.text for control in families_corpus.CONTROLS
]
CORPUS += [case.text for case in blind_corpus.CASES]
CORPUS += [
    case["text"]
    for name in ("secrets.json", "controls.json")
    for case in json.loads((ROOT / "tests" / "fixtures" / "redaction" / name).read_text())
]


def _pieces_of_real_text() -> list[str]:
    """10 kB pieces of onlooker's text modules and specs: code and prose the benchmark redacts."""
    paths = sorted((ROOT / "src" / "onlooker" / "text").glob("*.py"))[:6]
    paths += sorted((ROOT / "specs").glob("*.md"))[:6]
    text = "\n".join(path.read_text() for path in paths)
    return [text[at : at + 10_000] for at in range(0, len(text), 10_000)]


def _random_texts(seed: int, count: int) -> list[str]:
    """Texts of corpus words, cut corpus cases, the patterns' first words in any case, and
    random separators and letters (odd case folds and non-ASCII letters among them)."""
    rnd = random.Random(seed)
    words = " ".join(CORPUS).split()
    firsts = [w for started in STARTED.values() for w in started.words]
    firsts += [*assignments.NAME_NEEDLES, *(w.upper() for w in firsts), "is the", "(the"]
    odd = ["\u017f", "\u0130", "\u212a", "é", "ñ", "\n", "\t", "  ", " | ", ", ", "\\n"]
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rnd.randint(1, 60)):
            roll = rnd.random()
            if roll < 0.4:
                parts.append(rnd.choice(words))
            elif roll < 0.65:
                parts.append(rnd.choice(firsts))
            elif roll < 0.8:
                parts.append(rnd.choice(CORPUS)[: rnd.randint(0, 160)])
            elif roll < 0.9:
                parts.append(rnd.choice(odd))
            else:
                chars = string.ascii_letters + string.digits + "+/_-=.:\"' "
                parts.append("".join(rnd.choice(chars) for _ in range(rnd.randint(1, 45))))
        texts.append(rnd.choice([" ", "", "\n"]).join(parts))
    return texts


TEXTS = CORPUS + _pieces_of_real_text() + _random_texts(11, 1500)


def _spans(found: Iterator[re.Match[str]]) -> list[tuple[object, ...]]:
    return [(m.span(), m.groups()) for m in found]


@pytest.mark.parametrize("name", sorted(STARTED))
def test_a_pattern_tried_where_its_words_start_finds_what_it_finds_as_written(name: str) -> None:
    started = STARTED[name]
    found = 0
    for text in TEXTS:
        for haystack in (text, text.lower()):
            expected = _spans(started.pattern.finditer(haystack))
            assert _spans(started.finditer(haystack)) == expected, haystack
            found += len(expected)
            marked = started.pattern.sub("[X]", haystack)
            assert started.sub("[X]", haystack) == marked
            assert started.sub("[X]", haystack, haystack.lower()) == marked
            assert started.sub(lambda m: m.group(0).upper(), haystack) == started.pattern.sub(
                lambda m: m.group(0).upper(), haystack
            )
    assert found > 0  # the texts hold matches of every pattern


def test_the_words_a_pattern_starts_with_are_where_every_match_starts() -> None:
    for name, started in STARTED.items():
        for text in TEXTS:
            lowered = text.lower()
            for match in started.pattern.finditer(lowered):
                assert match.start() in word_starts(lowered, started.words), (name, match)


def test_positions_are_every_occurrence_whichever_text_came_before() -> None:
    for text in TEXTS[:300]:
        lowered = text.lower()
        for word in ("pass", "aa", "to", "\n", "é"):
            expected = tuple(m.start() for m in re.finditer(f"(?={re.escape(word)})", lowered))
            assert positions(lowered, word) == expected
            assert positions(lowered, word) == expected  # again, as remembered


def test_keywords_of_names_are_found_as_the_pattern_of_them_finds_them() -> None:
    pattern = re.compile("|".join(assignments.NAME_NEEDLES))
    for text in TEXTS:
        lowered = text.lower()
        keywords = assignments._Keywords(lowered)
        for at in range(0, len(lowered) + 1, 7):
            hit = pattern.search(lowered, at)
            assert keywords.next(at) == (hit.span() if hit else None)


def _kind_as_written(line: str, row: bool = False) -> str | None:
    if not row and tables._CODE_CHARS.search(line):
        return None
    if line.count(",") >= 2:
        return "csv"
    if line.count("|") >= 2:
        return "bar"
    if len(tables._GAP.findall(line)) >= 2:
        return "space"
    return None


def test_a_line_is_read_as_a_table_row_as_written() -> None:
    for text in TEXTS:
        for line in text.split("\n"):
            assert tables._kind(line) == _kind_as_written(line), line


def test_redaction_with_every_fast_path_equals_redaction_the_plain_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The property the fast paths keep: the same output as the shapes written plainly (each
    pattern over the whole text, keywords by the pattern, tokens by their pattern)."""
    fast = [redact(text) for text in TEXTS]
    assert sum(out != text for out, text in zip(fast, TEXTS, strict=True)) > 300

    def plain_finditer(self: Started, haystack: str) -> Iterator[re.Match[str]]:
        return self.pattern.finditer(haystack)

    def plain_sub(self: Started, replace: object, text: str, lowered: object = None) -> str:
        return self.pattern.sub(replace, text)  # type: ignore[call-overload, no-any-return]

    class PlainKeywords:
        def __init__(self, lowered: str) -> None:
            self.lowered = lowered
            self.pattern = re.compile("|".join(assignments.NAME_NEEDLES))

        def next(self, at: int) -> tuple[int, int] | None:
            hit = self.pattern.search(self.lowered, at)
            return hit.span() if hit else None

    monkeypatch.setattr(Started, "finditer", plain_finditer)
    monkeypatch.setattr(Started, "sub", plain_sub)
    monkeypatch.setattr(assignments, "_Keywords", PlainKeywords)
    monkeypatch.setattr(random_tokens, "_tokens", random_tokens._TOKEN.finditer)
    monkeypatch.setattr(
        random_tokens, "_credential_word", lambda b: bool(random_tokens._CREDENTIAL_WORDS.search(b))
    )
    monkeypatch.setattr(tables, "_kind", _kind_as_written)
    monkeypatch.setattr(tables, "_may_have_table", _may_have_table_as_written)
    monkeypatch.setattr(config_lines, "_directive_hinted", _directive_hinted_as_written)
    monkeypatch.setattr(config_lines, "_directive_sub", _directive_sub_as_written)
    monkeypatch.setattr(tables, "_naming_lines", lambda text, lowered: None)
    monkeypatch.setattr(
        rule_set, "ascii_sub", lambda p, _w, replace, text, _l: p.sub(replace, text)
    )
    monkeypatch.setattr(literal_starts, "_LAST", ("", {}))
    monkeypatch.setattr(redact_module, "expect", lambda lowered, absent: None)
    monkeypatch.setattr(redact_module.COMPILED_GATE, "_enabled", False)  # the pure gate
    monkeypatch.setattr(redact_module, "expect_after_marks", lambda before, lowered: None)
    monkeypatch.setattr(random_tokens, "_random", random_tokens._random_seen_first)
    monkeypatch.setattr(literal_starts, "_EXPECTED", ("", {}))
    monkeypatch.setattr(literal_starts, "_KNOWN_PREFIXES", collections.defaultdict(lambda: None))
    # each text changed lowercased whole again, not where its marks went (replaced_spans.py)
    monkeypatch.setattr(redact_module, "lowered_after", lambda _, __, after: (after.lower(), None))
    for module in (config_lines, headers, code_literals):
        monkeypatch.setattr(module, "lowered_again", lambda _, __, cleaned: cleaned.lower())
    plain = [redact(text) for text in TEXTS]
    for text, quick, slow in zip(TEXTS, fast, plain, strict=True):
        assert quick == slow, text


RULES = load_rules()


def test_most_rules_of_the_rule_set_have_words_every_match_starts_with() -> None:
    assert sum(rule.prefixes is not None for rule in RULES) > len(RULES) * 3 // 4


@pytest.mark.parametrize(
    ("pattern", "prefixes"),
    [
        (r"(?i)\b(?:sc|ext)_[a-z]+", ("ext_", "sc_")),
        (r"[Ll](?<!\w[\s\S])(?i:(?:(?<=l)ooker)x+)", ("looker",)),
        (r"(?:ab|c)d", ("abd", "cd")),
        (r"a\w+", None),  # one letter is not worth finding
        (r"[a-z]+secret", None),
        (r"(?i)\u212aey", ("key",)),  # the Kelvin sign lowercases to `k`
        (r"(?i)[s\u017f]ecret", ("secret",)),  # no text alike its lowercase holds a long s
        (r"é+x", None),
        (r"(?:x|)yz", ("xyz", "yz")),
        (r"(?i)(?<![\w-])(?:proxy-)?authorization:", ("authoriz", "proxy-au")),
        (r"x?yz", ("xyz", "yz")),
        (r"(?:ab)?\s", None),
        (r"[?&;](?P<name>[a-z]+)=", ("&", ";", "?")),  # one sign: rare enough to look for
        (r"[?a]\d", None),  # one letter among them: not
    ],
)
def test_the_words_a_pattern_starts_with_are_read_from_its_parse(
    pattern: str, prefixes: tuple[str, ...] | None
) -> None:
    assert literal_prefixes(re.compile(pattern)) == prefixes


def test_each_rule_tried_where_its_words_start_redacts_as_its_pattern_over_the_text() -> None:
    """Rule.apply on ASCII text against the rule's pattern `sub` over the whole text, on texts
    made of every rule's own examples of secrets around the corpus."""
    rnd = random.Random(3)
    ascii_texts = [t for t in TEXTS if t.isascii()]
    changed = 0
    for rule in RULES:
        if rule.prefixes is None:
            continue
        words = [*rule.prefixes, *(p.upper() for p in rule.prefixes), *rule.keywords]
        texts = [
            " ".join(rnd.choice([*words, "=", ": ", "'", rnd.choice(ascii_texts)[:80]])
                     + "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(40))
                     for _ in range(4))
            for _ in range(30)
        ] + ascii_texts[:: max(1, len(ascii_texts) // 40)]  # fmt: skip
        for text in texts:
            expected = rule.compiled.sub(rule._replace, text)
            assert rule.apply(text, text.lower()) == expected, (rule.id, text)
            changed += expected != text
    assert changed > 20


def test_a_rule_on_text_that_is_not_ascii_is_tried_everywhere() -> None:
    rule = next(r for r in RULES if r.id == "github-pat")
    assert isinstance(rule, Rule) and rule.prefixes == ("ghp_",)
    token = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    for text in (f"\u212a {token}", f"é {token.upper()}", f"é {token}"):
        assert rule.apply(text, text.lower()) == rule.compiled.sub(rule._replace, text)


@pytest.mark.parametrize(
    "text", ["\u017fecret_abc", "\u0131d_secret_abc", "\u212aEY secret_abc", "é secret_abc", "İ x"]
)
def test_a_text_is_searched_lowercased_only_where_that_finds_every_start(text: str) -> None:
    pattern = re.compile(r"(?i)(?:secret|id|key)_[a-z]{3}")
    prefixes = literal_prefixes(pattern)
    assert prefixes == ("id_", "key_", "secret_")
    lowered = text.lower()
    if literal_starts.lowered_alike(text, lowered):
        assert literal_starts.ascii_sub(
            pattern, prefixes, lambda m: m.group(0).upper(), text, lowered
        ) == (pattern.sub(lambda m: m.group(0).upper(), text))
    else:
        assert any(c in text for c in "\u017f\u0131\u0130")


def _may_have_table_as_written(lowered: str) -> bool:
    seen = 0
    while (word := tables._WORDS.search(lowered, seen)) is not None:
        start = lowered.rfind("\n", 0, word.start()) + 1
        end = lowered.find("\n", word.end())
        seen = len(lowered) if end < 0 else end
        line = lowered[start:seen]
        if (
            _kind_as_written(line) is not None
            or _kind_as_written(tables._uncommented(line)) == "space"
        ):
            return True
    return False


def _directive_hinted_as_written(haystack: str) -> bool:
    return config_lines._DIRECTIVE_HINT.search("\n" + haystack) is not None


def test_lines_found_from_their_words_are_those_the_patterns_find() -> None:
    hinted = tabled = 0
    for text in TEXTS:
        for haystack in (text, text.lower()):
            expected = _directive_hinted_as_written(haystack)
            assert config_lines._directive_hinted(haystack) == expected, haystack
            hinted += expected
            expected = _may_have_table_as_written(haystack)
            assert tables._may_have_table(haystack) == expected, haystack
            tabled += expected
    assert hinted > 50 and tabled > 50


def _directive_sub_as_written(replace: Callable[[re.Match[str]], str], text: str, _: str) -> str:
    return config_lines._DIRECTIVE.sub(replace, text)


def test_directives_are_redacted_from_the_lines_holding_a_secret_names_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = [*TEXTS, *(f"{name} {value}\n" for name in ("requirepass", "DB_PASSWORD", "auth", "x")
                       for value in ("hunter2x", "abc", '"q w e"'))]  # fmt: skip
    fast = [config_lines.redact_directives(text, text.lower()) for text in texts]
    monkeypatch.setattr(config_lines, "_directive_sub", _directive_sub_as_written)
    plain = [config_lines.redact_directives(text, text.lower()) for text in texts]
    assert fast == plain
    assert sum(out != text for out, text in zip(plain, texts, strict=True)) > 20


def test_line_starts_are_those_of_the_lines_holding_the_positions() -> None:
    rnd = random.Random(9)
    for _ in range(2000):
        text = "".join(rnd.choice("ab\n") for _ in range(rnd.randint(0, 30)))
        starts = sorted(rnd.sample(range(len(text)), min(len(text), rnd.randint(0, 6))))
        expected = sorted({text.rfind("\n", 0, at) + 1 for at in starts if text[at] != "\n"})
        got = list(literal_starts.line_starts(text, [at for at in starts if text[at] != "\n"]))
        assert got == expected, (text, starts)


def test_every_secret_name_holds_one_of_the_words_lines_are_picked_by() -> None:
    """Directives and table headers are read only on lines holding one of NAME_WORDS: sound as
    long as every name `is_secret_name` calls secret holds one."""
    rnd = random.Random(12)
    pieces = [*SECRET_WORDS, *SECRET_ENDINGS, *SECRET_AFTER_ANY, *KEY_QUALIFIERS, "key", "phrase",
              "signature", "seed", "amz", "x", "db", "_", "-", ".", "", "\u212a", "\u017f"]  # fmt: skip
    names = ["".join(rnd.choice(pieces) for _ in range(rnd.randint(1, 4))) for _ in range(20000)]
    names += [n.upper() for n in names[:3000]] + [n.title() for n in names[3000:6000]]
    secret = 0
    for name in names:
        if is_secret_name(name):
            secret += 1
            assert any(word in name.lower() for word in NAME_WORDS), name
    assert secret > 5000


def test_table_rows_are_read_as_when_every_line_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = ["| Name | Password |", "|---|---|", "| db | hunter2Secret |", "",
            "secret_key   wJalrXUtnFEMI/K7MDENG   file", "a, b, api_token", "x, y, Zq9secretvalue1"]  # fmt: skip
    rnd = random.Random(13)
    texts = [*TEXTS, *("\n".join(rnd.choice(rows) for _ in range(8)) for _ in range(500))]
    fast = [tables.redact_tables(text, text.lower()) for text in texts]
    monkeypatch.setattr(tables, "_naming_lines", lambda text, lowered: None)
    plain = [tables.redact_tables(text, text.lower()) for text in texts]
    assert fast == plain
    assert sum(out != text for out, text in zip(plain, texts, strict=True)) > 100


@pytest.mark.parametrize(
    "pattern",
    [
        code_literals._SQL,
        headers._SET_COOKIE,
        headers._COOKIE_LIST,
        key_formats._MNEMONIC,
        *(call for _, call, _ in code_literals._CALLS),
    ],
)
def test_patterns_substituted_from_their_starts_substitute_as_written(
    pattern: re.Pattern[str],
) -> None:
    assert literal_prefixes(pattern) is not None
    for text in TEXTS:
        expected = pattern.sub(lambda m: f"<{m.group(0)}>", text)
        got = literal_starts.sub_from_starts(
            pattern, lambda m: f"<{m.group(0)}>", text, text.lower()
        )
        assert got == expected, text


@pytest.mark.parametrize(
    "text",
    [
        "?a=1&b=22&c=333;d=4444 " * 40,  # signs everywhere: the pattern over the whole text
        "see https://x.io/p?sig=abcdef1234567890&code=Zq8v9mR2pLx9Kk1 once, in prose. " * 3,
        "",
    ],
)
def test_a_pattern_starting_with_one_sign_is_tried_from_each_as_over_the_text(text: str) -> None:
    pattern = re.compile(r"[?&;](?P<name>[A-Za-z][\w.\-]{0,60})=(?P<v>[^&#\s]{4,64})")
    assert literal_prefixes(pattern) == ("&", ";", "?")

    def replace(match: re.Match[str]) -> str:
        return match.group(0).upper()

    lowered = text.lower()
    assert literal_starts.sub_from_starts(pattern, replace, text, lowered) == pattern.sub(
        replace, text
    )
    found = literal_starts.finditer_from_starts(pattern, text, lowered)
    assert [m.span() for m in found] == [m.span() for m in pattern.finditer(text)]
