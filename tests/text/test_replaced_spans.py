"""After a shape replaces spans with marks, the redactor brings the text's lowercase and the
searched words' places up to date where the marks went (text/replaced_spans.py), not anew over
the whole text: each answer against the whole text lowercased or searched again, on the corpora
and on texts with `ı`, `ſ`, `İ` and `Σ`; and on a long text, a count of what was scanned, so a
redaction that goes over the whole text again after each shape that found something (the cost
of a megabyte growing with what it holds) fails here, by counting, not timing."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from test_compiled_gate import PIECES, _odd_texts
from test_literal_starts import TEXTS

from onlooker.text import folding, literal_starts
from onlooker.text import redact as redact_module
from onlooker.text.literal_starts import SEARCHED, positions
from onlooker.text.redact import COMPILED_GATE, redact
from onlooker.text.replaced_spans import MovedPlaces, kept_places, lowered_after, replaced_spans

MARKS = ("[REDACTED:assignment]", "[REDACTED:x]", "[REDACTED:github_token][REDACTED:y]")


def _marked(seed: int, texts: list[str]) -> list[tuple[str, str]]:
    """Each text, and the same with up to five spans replaced by marks (of any length, at its
    start, its end or anywhere, next to each other or to a mark it held)."""
    rnd = random.Random(seed)
    pairs = []
    for text in texts:
        cuts = sorted(rnd.randint(0, len(text)) for _ in range(2 * rnd.randint(1, 5)))
        pieces, done = [], 0
        for start, end in zip(cuts[::2], cuts[1::2], strict=True):
            end = min(end, start + rnd.choice((0, 1, 8, 40, 4000)))
            pieces += [text[done:start], rnd.choice(MARKS)]
            done = end
        pairs.append((text, "".join(pieces) + text[done:]))
    return pairs


def _rebuilt(before: str, after: str, spans: list[tuple[int, int, int, int]]) -> str:
    """`after` made from `before` and the spans: what lies between them taken from `before`."""
    pieces, done = [], 0
    for old_start, old_end, start, end in spans:
        assert done <= old_start <= old_end and set(after[start:end]) != set()
        pieces += [before[done:old_start], after[start:end]]
        done = old_end
    return "".join(pieces) + before[done:]


def test_the_spans_replaced_rebuild_the_text_after_them() -> None:
    pairs = _marked(3, [*TEXTS, *PIECES, ""])
    found = 0
    for before, after in pairs:
        spans = replaced_spans(before, after)
        if spans is not None:
            assert _rebuilt(before, after, spans) == after
            assert all(after[start:end].startswith("[REDACTED:") for _, _, start, end in spans)
            found += 1
    assert found > 0.95 * len(pairs)


@pytest.mark.parametrize(
    ("before", "after", "found"),
    [
        ("password=hunter2", "password=[REDACTED:x]", True),
        ("a [REDACTED:x] b c", "a [REDACTED:x] [REDACTED:y] c", True),  # a mark it held, a new one
        ("secret", "[REDACTED:x]", True),
        ("k=v1 k=v2 end", "k=[REDACTED:x] k=[REDACTED:x] end", True),
        ("abc", "abd", False),  # not a mark
        ("abc", "ab", False),  # cut with no mark
        ("x c c c", "x [REDACTED:y] c", None),  # what follows the mark is in the span too
        ("ab [REDACTED:", "ab [REDACTED:x] [REDACTED:", None),
    ],
)
def test_spans_in_odd_places_are_right_or_none(before: str, after: str, found: bool | None) -> None:
    """Right when found; found where the marks are plain to see; not found where the text
    changed otherwise; where a guess fails, given up (the caller then does it all anew)."""
    spans = replaced_spans(before, after)
    if spans is not None:
        assert _rebuilt(before, after, spans) == after
    if found is not None:
        assert (spans is not None) == found


def test_the_lowercase_made_where_marks_went_is_the_lowercase() -> None:
    odd = [f"{t}\u03a3\u03a3 x" for t in TEXTS[:300]] + _odd_texts()
    spliced = 0
    for before, after in _marked(4, [*TEXTS, *PIECES, *odd]):
        again, spans = lowered_after(before.lower(), before, after)
        assert again == after.lower()
        if spans is not None:
            assert _rebuilt(before.lower(), again, spans) == again
            spliced += not after.isascii()
    assert spliced > 300


def test_the_words_places_moved_by_the_spans_are_where_a_new_scan_finds_them() -> None:
    assert COMPILED_GATE.available
    for before, after in _marked(5, [*TEXTS[:2000], *PIECES]):
        lowered = before.lower()
        again, spans = lowered_after(lowered, before, after)
        known = COMPILED_GATE.words(lowered)
        assert known is not None
        assert COMPILED_GATE.words_after(lowered, known, again, spans) == COMPILED_GATE.words(again)


def test_places_worked_out_when_asked_for_are_where_find_finds_them() -> None:
    words = sorted(SEARCHED)
    for before, after in _marked(6, [*TEXTS[:1500], *PIECES]):
        lowered = before.lower()
        again, spans = lowered_after(lowered, before, after)
        if spans is None:
            continue
        known = {word: _found(lowered, word) for word in words[::7]}
        moved = MovedPlaces(known, spans, len(lowered), again)
        for word in words[::7]:
            assert moved.get(word) == _found(again, word), (word, after)
        assert moved.get("not a searched word") is None


def test_a_shape_that_lowercases_its_text_again_finds_each_word_where_it_is() -> None:
    for before, after in _marked(7, [*TEXTS[:800], *PIECES]):
        lowered = before.lower()
        known = COMPILED_GATE.words(lowered)
        assert known is not None
        literal_starts.expect_positions(lowered, known)
        again = literal_starts.lowered_again(before, lowered, after)
        assert again == after.lower()
        for word in sorted(SEARCHED)[::5]:
            assert positions(again, word) == _found(again, word)


def test_words_in_a_text_folded_are_where_find_finds_them() -> None:
    """A text holding `ı` or `ſ` is searched folded (folding.py): the words' places there come
    from those in its lowercase and around each such letter."""
    derived = 0
    for text in _odd_texts():
        lowered = text.lower()
        known = COMPILED_GATE.words(lowered)
        assert known is not None
        literal_starts.expect_positions(lowered, known)
        folded = folding.starts_haystack(text, lowered)
        derived += folding.folded_from(folded) is not None
        for word in [*sorted(SEARCHED)[::5], "secret", "id_", "pass"]:
            assert positions(folded, word) == _found(folded, word), (word, text)
    assert derived > 500


def _found(haystack: str, word: str) -> tuple[int, ...]:
    return tuple(at for at in range(len(haystack)) if haystack.startswith(word, at))


class _Counted:
    """The automaton, counting the characters it is given."""

    def __init__(self, automaton: Any) -> None:
        self.automaton, self.scanned = automaton, 0

    def find_matches_as_indexes(self, text: str, **options: Any) -> Any:
        self.scanned += len(text)
        return self.automaton.find_matches_as_indexes(text, **options)


#: Prose with secrets of many kinds (so many shapes change it).
_BLOCK = (
    "The deploy notes say password=Zq8v!mR2pLx9 for the staging box and the token\n"
    "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 for the bot; run `sqlplus scott/T1ger88@orcl`\n"
    "then curl -H 'Authorization: Token 9f8e7d6c5b4a39281706f5e4' with DB_PASS=hunter2x9.\n"
    "Nothing else here is secret.\n"
    + "The service keeps its journal in order and replays it after a restart, once.\n"
    * 25
)


def test_a_long_text_is_scanned_about_once_whatever_the_shapes_find(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """300 kB of prose that many shapes change: the automaton is given about the text's length
    and the stretches around the marks (not the whole text again after each shape), every
    change is followed by its spans (never a whole lowercasing), and the folded text's words
    come from the lowercase's (not searched for again in it)."""
    assert COMPILED_GATE.available
    # an `ı` and an `ſ`, so the text is searched folded
    text = "Turkish dotless \u0131 and long \u017f stay.\n" + _BLOCK * (300_000 // len(_BLOCK))
    expected = redact(text)
    assert expected.count("[REDACTED:") >= 5 * (300_000 // len(_BLOCK))
    state = COMPILED_GATE._state
    assert state is not None
    counted = _Counted(state.automaton)
    monkeypatch.setattr(COMPILED_GATE, "_state", state._replace(automaton=counted))
    monkeypatch.setattr(COMPILED_GATE, "_scans", 0)  # not rebuilt with more words meanwhile
    changes: list[bool] = []

    def followed(lowered: str, before: str, after: str) -> Any:
        again, spans = lowered_after(lowered, before, after)
        changes.append(spans is not None)
        return again, spans

    monkeypatch.setattr(redact_module, "lowered_after", followed)
    searched_folded: list[bool] = []
    folded_positions = literal_starts._folded_positions

    def counted_folded(folded: str, word: str) -> tuple[int, ...] | None:
        found = folded_positions(folded, word)
        searched_folded.append(found is not None)
        return found

    monkeypatch.setattr(literal_starts, "_folded_positions", counted_folded)
    assert redact(text) == expected
    assert len(changes) >= 4 and all(changes)
    assert len(text) <= counted.scanned < 1.25 * len(text)
    # (a few are searches in the text as written, by a pattern that does not ignore case)
    assert len(searched_folded) > 20 and sum(searched_folded) > 0.9 * len(searched_folded)


def test_places_kept_outside_many_spans_are_moved_as_the_text_moved() -> None:
    """`kept_places` (by segments, or each place looked up among the spans) against moving each
    place by hand, with one span, a few or many."""
    rnd = random.Random(9)
    for _ in range(400):
        length = rnd.randint(0, 400)
        count = min(rnd.choice((1, 3, 40)), (length + 1) // 2)
        cuts = sorted(rnd.sample(range(length + 1), 2 * count))  # apart, as replaced_spans gives
        spans, shift = [], 0
        for old_start, cut in zip(cuts[::2], cuts[1::2], strict=True):
            old_end = old_start if rnd.random() < 0.2 else cut  # a mark put in, nothing replaced
            size = rnd.randint(1, 30)
            spans.append((old_start, old_end, old_start + shift, old_start + shift + size))
            shift += size - (old_end - old_start)
        size = rnd.randint(1, 6)
        room = range(max(0, length - size + 1))  # a word lies within the text
        places = sorted(rnd.sample(room, rnd.randint(0, min(len(room), 30))))
        expected = [_moved_by_hand(at, size, spans) for at in places]
        expected = [at for at in expected if at is not None]
        assert kept_places(places, size, spans, length) == tuple(expected), (places, spans)


def _moved_by_hand(at: int, size: int, spans: list[tuple[int, int, int, int]]) -> int | None:
    """Where a word `size` long at `at` is once the spans are replaced: None when it reaches
    into one (or over where one was put in), else moved by the spans before it."""
    shift = 0
    for old_start, old_end, _, end in spans:
        if at < old_end and at + size > old_start:
            return None
        if old_start == old_end and at < old_start < at + size:
            return None
        if old_end <= at:
            shift = end - old_end
    return at + shift


def test_places_moved_when_asked_for_are_where_a_new_scan_finds_them() -> None:
    """The redactor's way after a change: the stretches around the spans scanned at once, each
    word's places moved when a shape asks for it, through several changes in a row (a word the
    scan did not know of is not known: `positions` finds it)."""
    assert COMPILED_GATE.available
    for text, once in _marked(10, [*TEXTS[:1200], *PIECES]):
        lowered = text.lower()
        known: Any = COMPILED_GATE.words(lowered)
        for before, after in ((text, once), *_marked(11, [once])):
            before_lowered = lowered
            lowered, spans = lowered_after(lowered, before, after)
            if spans is None:  # not a change found by its marks, or `İ`: scanned anew instead
                break
            known = COMPILED_GATE.moved(before_lowered, known, lowered, spans)
            assert known is not None
            fresh = COMPILED_GATE.words(lowered)
            assert fresh is not None
            for word in sorted(fresh)[::3]:
                assert known.get(word) == fresh[word], (word, after)
            assert known.get("not a searched word") is None


def test_ascii_capitals_made_small_as_a_table_translation_makes_them() -> None:
    """`folding.ascii_lowered` (bytes lowercased) against `str.translate` with a table, on the
    corpora, the pieces, texts with odd letters, surrogates and pairs of them."""
    table = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
    odd = ["\ud800 A", "\ud83d\ude00B", "\u0130\u212a\u03a3\u00c9Z", ""]
    for text in [*TEXTS, *PIECES, *_odd_texts(), *odd]:
        assert folding.ascii_lowered(text) == text.translate(table)
