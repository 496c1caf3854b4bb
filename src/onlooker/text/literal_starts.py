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

import importlib
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .folding import FOLD, folded_from, lowered_alike, starts_haystack
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


def _lines_up_to(haystack: str, ats: list[int]) -> Iterator[tuple[int, int]]:
    """For each line holding one of `ats` (in order): (where the line starts, its last `at`)."""
    line_start = line_end = last = -1
    for at in ats:
        if at > line_end:
            if last >= 0:
                yield line_start, last
            newline = haystack.rfind("\n", line_end + 1, at)
            line_start = line_end + 1 if newline == -1 else newline + 1
            line_end = haystack.find("\n", at)
            if line_end == -1:
                line_end = len(haystack)
        last = at
    if last >= 0:
        yield line_start, last


def word_starts(haystack: str, words: Iterable[str]) -> list[int]:
    """Every position in `haystack` where one of `words` begins, in order, each once."""
    found: set[int] = set()
    for word in words:
        found.update(positions(haystack, word))
    return sorted(found)


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
        if expected:
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
        """Where the words start that end before the last of `then` on their line."""
        found: set[int] = set()
        lines = list(_lines_up_to(haystack, word_starts(haystack, self.then)))
        if not lines:
            return []
        for word in self.words:
            # the word's places in the whole text (known already, or found once), those on each
            # line: the same as `find` from the line's start to `end`
            starts = positions(haystack, word)
            if not starts:
                continue
            last = len(word)
            for start, end in lines:
                at = bisect_left(starts, start)
                while at < len(starts) and starts[at] + last <= end:
                    found.add(starts[at])
                    at += 1
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


#: Prefixes are followed this far, and a pattern with more prefixes than this is tried as it is.
_PREFIX_LENGTH = 8
_MOST_PREFIXES = 24
_NOT_WORDS = "the pattern's start is not a handful of words"


def literal_prefixes(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Lowercase words, one of which starts every match of `pattern` in a text, found in the text
    lowercased when it is `lowered_alike` (so, for a pattern that ignores case or not): read from
    the pattern's parse,
    skipping what takes no characters (`\\b`, lookarounds), through groups and alternatives and
    small character classes. None when some match may start otherwise, or the words would be
    too many or too short (one letter) to find faster than the engine tries the pattern."""
    try:
        parser: Any = importlib.import_module("re._parser")
        parsed = parser.parse(pattern.pattern, pattern.flags)
        found = _prefixes(list(parsed.data), 0, "", importlib.import_module("re._constants"))
    except (ImportError, AttributeError, ValueError, RecursionError):  # ValueError: gave up
        return None
    if not found or min(map(len, found)) < 2 or len(found) > _MOST_PREFIXES:
        return None
    return tuple(sorted(found))


def _prefixes(items: list[Any], at: int, head: str, sre: Any) -> set[str]:
    """The words a match of items[at:] starts with, each after `head` (cut at _PREFIX_LENGTH).
    Raises ValueError when the start is not a handful of words."""
    if len(head) >= _PREFIX_LENGTH or at == len(items):
        if not head:
            raise ValueError(_NOT_WORDS)
        return {head}
    op, value = items[at]
    rest = items[at + 1 :]
    found: set[str]
    if op is sre.ASSERT and head and value[0] == -1 and len(value[1].data) == 1:
        kind, code = value[1].data[0]  # `(?<=l)` after `[Ll]` (_shape.keywords_first)
        if kind is sre.LITERAL and _ascii_lower(code) != head[-1]:
            return set()
    if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
        return _prefixes(items, at + 1, head, sre)
    if op is sre.LITERAL:
        char = _ascii_lower(value)
        return set() if char is None else _prefixes(items, at + 1, head + char, sre)
    if op is sre.IN and all(kind is sre.LITERAL for kind, _ in value):
        chars = {_ascii_lower(c) for _, c in value} - {None}
        if len(chars) <= 8:
            found = set()
            for char in chars:
                found |= _prefixes(rest, 0, head + str(char), sre)
            return found
    if op is sre.SUBPATTERN:
        return _prefixes([*value[-1].data, *rest], 0, head, sre)
    if op is sre.BRANCH:
        found = set()
        for branch in value[1]:
            found |= _prefixes([*branch.data, *rest], 0, head, sre)
            if len(found) > _MOST_PREFIXES:
                raise ValueError(_NOT_WORDS)
        return found
    if not head:  # a repeat, a class, anything else: the words end here
        raise ValueError(_NOT_WORDS)
    return {head}


def _ascii_lower(code: int) -> str | None:
    """The character lowercased, as it is in a text `lowered_alike` its lowercase, or `ı`,
    `ſ` and `İ` (which no such text holds) as they are in a text folded (`starts_haystack`)."""
    char = chr(code)
    lowered = char.lower()
    if len(lowered) == 1 and lowered.isascii():
        return lowered  # the Kelvin sign too, which lowercases to `k`
    if char in "\u0131\u017f\u0130":
        return FOLD[char]
    raise ValueError(_NOT_WORDS)  # a character that may match another when case is ignored


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
    if prefixes is None:
        yield from pattern.finditer(text)
        return
    done = 0
    for start in word_starts(starts_haystack(text, lowered), prefixes):
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
