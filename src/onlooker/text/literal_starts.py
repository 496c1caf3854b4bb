"""A pattern's matches found from where they can start: the words every match begins with.

A pattern that starts with an alternation of words (`pass|pw|token|secret…`) is tried by the
regular expression engine at every character one of those words starts with (`p`, `t`, `s`: a
third of a text), each try costing more than a character. Every match starts where one of the
words starts, and `str.find` finds a word in a text some fifty times faster than the engine
tries the pattern: so the words are found first, and the pattern is tried only there (with
`pattern.match`, which sees the text before the position as `search` does: lookbehinds and `\\b`
answer the same). The matches are those of `pattern.finditer`, in the same order (the property
test in tests/text/test_literal_starts.py compares both on the corpus and on random text).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain

from .folding import folded_from, lowered_alike, starts_haystack
from .pattern_starts import literal_prefixes
from .replaced_spans import MovedPlaces, Replaced, lowered_after

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).


#: Every word searched for by `positions` that is known ahead, by its longest stretch of word
#: characters: the needle gate (redact.py) finds which stretches a text holds, and a word whose
#: stretch is not there is not searched for (`expect`).
SEARCHED: dict[str, str] = {}
_STRETCH = re.compile(r"[a-z0-9_]+")


def searched(*words: str) -> tuple[str, ...]:
    """Register `words` (lowercase) as searched for in lowercased texts; returns them."""
    for word in words:
        stretch = max(_STRETCH.findall(word), key=len, default="")
        if stretch:
            SEARCHED[word] = stretch
    return words


def expect(lowered: str, absent: Iterable[str]) -> None:
    """Tell `positions` that the words `absent` (of SEARCHED) do not occur in `lowered`."""
    global _EXPECTED
    known = _LAST[1] if _LAST[0] is lowered else {}  # what was found in it already
    known.update((word, ()) for word in absent)
    _EXPECTED = (lowered, known)


def expect_positions(lowered: str, known: dict[str, tuple[int, ...]]) -> None:
    """Tell `positions` where each word of `known` starts in `lowered` (every occurrence, in
    order; `()` for a word not in it), as the compiled gate found them (compiled_gate.py)."""
    global _EXPECTED
    _EXPECTED = (lowered, known)


def expect_moved(
    before: str,
    known: dict[str, tuple[int, ...]] | None,
    spans: Sequence[Replaced],
    lowered: str,
) -> dict[str, tuple[int, ...]]:
    """Tell `positions` where words start in `lowered`, made from `before` by replacing
    `spans`: where they start in `before` (`known`, or else as `positions` was told of it),
    moved, and looked for in the spans (`replaced_spans.MovedPlaces`, when asked). Returns
    what it told."""
    if known is None:
        told, told_known = _EXPECTED
        known = told_known if told is before else {}
    moved = MovedPlaces(known, spans, len(before), lowered)
    expect_positions(lowered, moved)
    return moved


def lowered_again(text: str, lowered: str, cleaned: str) -> str:
    """`cleaned.lower()`, for a shape that changed `text` (whose lowercase is `lowered`) into
    `cleaned` and searches on: made where the text changed, and, when `positions` was told of
    `lowered`, told where the words start in it (`expect_moved`)."""
    again, spans = lowered_after(lowered, text, cleaned)
    if spans is not None and _EXPECTED[0] is lowered:
        expect_moved(lowered, None, spans, again)
    return again


_MARKS = re.compile(r"\[redacted:[^\]]*\]")


def expect_after_marks(before: str, lowered: str) -> None:
    """Tell `positions` that the words absent from `before` (as it was told by `expect`) are
    absent from `lowered` too, that text with spans replaced by marks (`[redacted:<kind>]`):
    each word not in a mark and without `[` or `]` (which would reach across a mark's end)."""
    global _EXPECTED
    told, known = _EXPECTED
    if told is not before:  # told of another text since (another thread)
        return
    # the marks end to end: a word reaching across two of them would hold `]`
    marks = "".join(_MARKS.findall(lowered))
    _EXPECTED = (
        lowered,
        {
            word: ()
            for word, found in known.items()
            if not found and "[" not in word and "]" not in word and word not in marks
        },
    )


def line_starts(haystack: str, starts: list[int]) -> Iterator[int]:
    """Where each line holding one of `starts` (in order) starts, each once: in linear time
    (each line end found once, each line start searched for back to the line before)."""
    line_end = -1
    for at in starts:
        if at <= line_end:
            continue
        newline = haystack.rfind("\n", line_end + 1, at)
        yield line_end + 1 if newline == -1 else newline + 1
        line_end = haystack.find("\n", at)
        if line_end == -1:
            return


def word_starts(haystack: str, words: Iterable[str]) -> list[int]:
    """Every position in `haystack` where one of `words` begins, in order, each once (the same
    list to every caller asking of the same text with the same words: not to be changed)."""
    global _STARTS
    told, known = _STARTS
    if told is not haystack:
        known = {}
        _STARTS = (haystack, known)
    key = words if isinstance(words, tuple | frozenset) else tuple(words)
    starts = known.get(key)
    if starts is None:
        told, places_of = _EXPECTED
        if told is haystack:  # the places known already taken as `positions` takes them
            found = []
            for word in key:
                places = places_of.get(word)
                if places is None:
                    places = positions(haystack, word)
                if places:
                    found.append(places)
        else:
            found = [places for places in [positions(haystack, word) for word in key] if places]
        # one word found: its places are in order, each once; words none of which starts
        # another never start at one place: their places merged as they are (runs in order)
        if len(found) > 1:
            starts = (
                sorted(chain.from_iterable(found)) if _apart(key) else sorted(set().union(*found))
            )
        else:
            starts = list(found[0]) if found else []
        known[key] = starts
    return starts


def _apart(words: tuple[str, ...] | frozenset[str]) -> bool:
    """Whether no two of `words` can start at one place: none is another's start."""
    apart = _APART.get(words)
    if apart is None:
        apart = _APART[words] = not any(
            first.startswith(second)
            for at, first in enumerate(words)
            for other, second in enumerate(words)
            if at != other
        )
    return apart


#: Whether the words of each group asked of `word_starts` are `_apart`.
_APART: dict[tuple[str, ...] | frozenset[str], bool] = {}


#: The last text `word_starts` was asked of, and its answer for each group of words: the shapes
#: look for the same groups (`pass`, `token`, `key`…) one after another (one tuple, replaced
#: whole: safe across threads).
_STARTS: tuple[str, dict[tuple[str, ...] | frozenset[str], list[int]]] = ("", {})


#: Words searched for in a text `expect_positions` was told of, not known there: the compiled
#: gate, which tells where words start, looks for these too once it has seen them.
WANTED: set[str] = set()
#: The last text searched and, for each word, where it starts in it: the shapes run one after
#: another on the same lowercased text and look for the same words (`pass`, `token`, `key`), so
#: each is searched for once per text. One tuple, replaced whole: safe across threads.
_LAST: tuple[str, dict[str, tuple[int, ...]]] = ("", {})
#: The same for the text `expect` was told of (the lowercased text every shape gets), kept
#: apart so that a search in another text (the text as written) does not forget it.
_EXPECTED: tuple[str, dict[str, tuple[int, ...]]] = ("", {})


def positions(haystack: str, word: str) -> tuple[int, ...]:
    """Where `word` starts in `haystack` (overlapping occurrences included), in order."""
    global _LAST
    last_text, known = _EXPECTED
    expected = last_text is haystack
    if not expected:
        last_text, known = _LAST
        if last_text is not haystack:
            known = {}
            _LAST = (haystack, known)
    found = dict.get(known, word)  # known already (as a dict: see MovedPlaces)
    if found is None and type(known) is MovedPlaces:
        found = known.get(word)
    if found is None:
        if expected and len(word) > 1:  # (one character is found by `in`, not the automaton)
            WANTED.add(word)  # the compiled gate finds it too from now on (compiled_gate.py)
        found = None if expected else _folded_positions(haystack, word)
        if found is None:
            starts = []
            at = haystack.find(word)
            while at != -1:
                starts.append(at)
                at = haystack.find(word, at + 1)
            found = tuple(starts)
        known[word] = found
    return found


#: A folded text with more places of `ı` or `ſ` than this is searched as it is.
_MOST_FOLDS = 64


def _folded_positions(folded: str, word: str) -> tuple[int, ...] | None:
    """`positions(folded, word)` for the text folded from the lowercased text `expect_positions`
    or `expect` was told of (`folding.folded_from`): the word's places there (known, or found
    once for both), and those reaching over a place where `ı` or `ſ` was made ASCII (the one
    difference; a word of ASCII letters holds neither); None for any other text."""
    source = folded_from(folded)
    if source is None:
        return None
    lowered, odd = source
    if lowered is not _EXPECTED[0] or len(odd) > _MOST_FOLDS or not word.isascii():
        return None
    found = positions(lowered, word)
    size = len(word)
    more: set[int] = set()
    for place in odd:
        at = folded.find(word, max(0, place - size + 1), place + size)
        while at != -1:
            more.add(at)
            at = folded.find(word, at + 1, place + size)
    return tuple(sorted(more.union(found))) if more else found


@dataclass(frozen=True, slots=True)
class Started:
    """A pattern that cannot match without starting with one of `words` (as they are written in
    the text it is run on: lowercase words for a pattern run on lowercased text)."""

    pattern: re.Pattern[str]
    words: tuple[str, ...]
    #: Words one of which every match holds after its first word, on the same line (a match
    #: never holds a line break): the first words are looked for only on lines holding one,
    #: before the last one there.
    then: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if all(word == word.lower() for word in (*self.words, *self.then)):
            searched(*self.words, *self.then)

    def finditer(self, haystack: str) -> Iterator[re.Match[str]]:
        """`pattern.finditer(haystack)`: its matches never empty, each starting at a word."""
        done = 0
        starts = self._starts_before(haystack) if self.then else word_starts(haystack, self.words)
        for start in starts:
            if start < done:
                continue
            found = self.pattern.match(haystack, start)
            if found is not None:
                done = found.end()
                yield found

    def _starts_before(self, haystack: str) -> list[int]:
        """Where the words start that end before the last of `then` on their line: those for
        which the first of `then` starting at or after the word's end is on the same line (no
        line break between), each found by a bisection in the places of `then`."""
        thens = word_starts(haystack, self.then)
        if not thens:
            return []
        found: set[int] = set()
        count = len(thens)
        for word in self.words:
            # the word's places in the whole text (known already, or found once)
            last = len(word)
            for at in positions(haystack, word):
                index = bisect_left(thens, at + last)
                if index < count and haystack.find("\n", at, thens[index]) == -1:
                    found.add(at)
        return sorted(found)

    def sub(
        self, replace: str | Callable[[re.Match[str]], str], text: str, lowered: str | None = None
    ) -> str:
        """`pattern.sub(replace, text)` (a function, or a replacement without group references).
        `lowered`, when given, is `text.lower()`: none of the words (lowercase, as written in
        `text`) in it, none in `text` either, and no match; else, when `lowered_alike`, the
        words are looked for there, where their positions may be known already."""
        if lowered is not None:
            if not any(positions(lowered, word) for word in self.words):
                return text
            if lowered_alike(text, lowered) and all(w == w.lower() for w in self.words):
                function = replace if callable(replace) else (lambda _, mark=replace: mark)
                return ascii_sub(self.pattern, self.words, function, text, lowered)
        pieces: list[str] = []
        done = 0
        for found in self.finditer(text):
            replaced = replace if isinstance(replace, str) else replace(found)
            if replaced != found.group(0):  # else the text stays this very object
                pieces.append(text[done : found.start()])
                pieces.append(replaced)
                done = found.end()
        return "".join(pieces) + text[done:] if pieces else text


def ascii_sub(
    pattern: re.Pattern[str],
    prefixes: tuple[str, ...],
    replace: Callable[[re.Match[str]], str],
    text: str,
    lowered: str,
) -> str:
    """`pattern.sub(replace, text)` for a `text` `lowered_alike` its lowercased `lowered`, the
    pattern tried only where one of its `literal_prefixes` starts in `lowered`: `text` itself
    (the same object) when no match was replaced by something else."""
    if _common(prefixes, lowered):
        cleaned = pattern.sub(replace, text)
        return text if cleaned == text else cleaned
    pieces: list[str] = []
    done = matched = 0
    for start in word_starts(lowered, prefixes):
        if start < matched:
            continue
        found = pattern.match(text, start)
        if found is not None:
            matched = found.end()
            replaced = replace(found)
            if replaced != found.group(0):
                pieces.append(text[done:start])
                pieces.append(replaced)
                done = matched
    return "".join(pieces) + text[done:] if pieces else text


#: One sign (`?`, `&`) starting matches more often than once in this many characters: the
#: engine tries the pattern along the text faster than each place is found and tried.
_RARE = 64


def _common(prefixes: tuple[str, ...], haystack: str) -> bool:
    """Whether the one-character words among `prefixes` are too common in `haystack` to be
    found first."""
    singles = _SINGLES.get(prefixes)
    if singles is None:
        singles = _SINGLES[prefixes] = tuple(word for word in prefixes if len(word) == 1)
    return bool(singles) and sum(map(haystack.count, singles)) * _RARE > len(haystack)


#: The one-character words of each group of prefixes asked of `_common`.
_SINGLES: dict[tuple[str, ...], tuple[str, ...]] = {}


_KNOWN_PREFIXES: dict[re.Pattern[str], tuple[str, ...] | None] = {}


def finditer_from_starts(
    pattern: re.Pattern[str], text: str, lowered: str
) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)` for a pattern whose matches are never empty, tried only where
    the words its matches start with start (`literal_prefixes`) when `text` is `lowered_alike`
    `lowered`."""
    prefixes = _KNOWN_PREFIXES.get(pattern, ())
    if prefixes == ():
        prefixes = _KNOWN_PREFIXES[pattern] = literal_prefixes(pattern)
    haystack = starts_haystack(text, lowered) if prefixes is not None else text
    if prefixes is None or _common(prefixes, haystack):
        yield from pattern.finditer(text)
        return
    done = 0
    for start in word_starts(haystack, prefixes):
        if start < done:
            continue
        found = pattern.match(text, start)
        if found is not None:
            done = found.end()
            yield found


def sub_from_starts(
    pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str], text: str, lowered: str
) -> str:
    """`pattern.sub(replace, text)`, tried only where the words its matches start with start
    (`literal_prefixes`, read once per pattern) when `text` is `lowered_alike` `lowered`."""
    prefixes = _KNOWN_PREFIXES.get(pattern, ())
    if prefixes == ():
        prefixes = _KNOWN_PREFIXES[pattern] = literal_prefixes(pattern)
    if prefixes is None:
        cleaned = pattern.sub(replace, text)
        return text if cleaned == text else cleaned  # the same object when nothing changed
    return ascii_sub(pattern, prefixes, replace, text, starts_haystack(text, lowered))
