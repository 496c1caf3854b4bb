"""The needle gate in one pass of a compiled automaton, when `ahocorasick_rs` is installed.

`needle_gate.NeedleGate` finds which needles a lowercased text holds with the standard library
alone (runs of word characters, a trie pattern, `in` tests), and `literal_starts.positions` then
finds where each word the shapes search for starts, with `str.find`: together some 0.4–0.6 ms
per 10 kB. An Aho-Corasick automaton of every needle and searched word finds all of them, every
occurrence with where it starts, in one pass in compiled code (some 0.05 ms per 10 kB): which
shapes to try, and every searched word's positions, so no shape searches for one again.

The answer is the pure gate's exactly (each needle opens its shapes when it is in the text; each
word's positions are every occurrence, overlapping ones included, as `positions` finds them).
Without the package (the hook client loads this folder by path under `python -I -S`, so with
the standard library only), or on a text it cannot take (lone surrogates), `scan` answers None
and `redact` uses the pure gate: the same output (tests/text/test_compiled_gate.py).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from .literal_starts import WANTED
from .replaced_spans import MovedPlaces, Replaced, kept_places

# Imports nothing outside text/ and the standard library at import time: the hook client loads
# this folder by path (see redact.py); `ahocorasick_rs` is imported on first use, when present.

Scan = tuple[frozenset[int], dict[str, tuple[int, ...]]]
"""(the shapes opened, where each searched word starts: `()` for a word not in the text)."""

_NONE: frozenset[int] = frozenset()
#: Scans before words the shapes asked for (`literal_starts.WANTED`) are added, at the most
#: often: a new automaton takes some milliseconds, and the words come in over the first texts.
_REBUILT_AFTER = 32


class _State(NamedTuple):
    """One automaton and what its pattern indexes mean, replaced whole (other threads scan)."""

    automaton: Any
    #: pattern index -> the shapes it opens
    opens: list[frozenset[int]]
    #: pattern index -> the searched word it is, or None
    words: list[str | None]
    #: every searched word, as absent until found
    absent: dict[str, tuple[int, ...]]
    #: how many words of WANTED it was built with
    wanted: int
    #: the longest pattern's length
    longest: int


class CompiledGate:
    """Which shapes the needles of a lowercased text open, and where the searched words start."""

    def __init__(self, gates: Mapping[str, frozenset[int]], searched: Iterable[str]) -> None:
        #: needle -> the shapes it opens (searched words open none).
        self._gates = dict(gates)
        self._searched = frozenset(searched)
        #: One-character needles (`:`, `-`): found by `in`, at memory speed; in the automaton
        #: they would be matches at every other character.
        self._chars = tuple(
            (needle, opens) for needle, opens in self._gates.items() if len(needle) == 1 and opens
        )
        self._state: _State | None = None
        self._enabled = True
        self._tried = False
        self._scans = 0

    @property
    def available(self) -> bool:
        """Whether the compiled automaton can be used (the package is installed)."""
        return self._enabled and self._current() is not None

    def enable(self, enabled: bool) -> bool:
        """Use the automaton (when installed) or not; returns whether it was enabled."""
        was, self._enabled = self._enabled, enabled
        return was

    def warm(self) -> None:
        """Build the automaton now, with every word the shapes have asked for so far (else
        built on the first scan, and again with those words some scans later)."""
        state = self._current() if self._enabled else None
        if state is not None and len(WANTED) != state.wanted:
            self._compile()

    def scan(self, lowered: str) -> Scan | None:
        """What `lowered` opens and where each searched word starts in it; None without the
        package, or for a text it cannot encode (then the pure gate answers)."""
        found = self._starts(lowered)
        if found is None:
            return None
        state, starts = found
        opens = state.opens
        opened = _NONE.union(*(opens[index] for index in starts))
        for char, shapes in self._chars:
            if not shapes <= opened and char in lowered:
                opened |= shapes
        return opened, _known(state, starts)

    def words(self, lowered: str) -> dict[str, tuple[int, ...]] | None:
        """Where each searched word starts in `lowered` (`scan` without the shapes)."""
        found = self._starts(lowered)
        return None if found is None else _known(*found)

    def words_after(
        self,
        before: str,
        known: dict[str, tuple[int, ...]],
        lowered: str,
        spans: Sequence[Replaced] | None = None,
    ) -> dict[str, tuple[int, ...]] | None:
        """`words(lowered)` for a text `lowered` made from `before`, whose words start at
        `known` (as `words` told), by replacing spans: `spans` (replaced_spans.py) when told,
        else the one stretch between what both share at their start and at their end. The
        words wholly outside the spans are where they were (shifted); around each span, widened
        by the longest word, the text is scanned."""
        if not self._enabled or self._state is None or not isinstance(known, dict):
            return self.words(lowered)
        state = self._state
        # told by this automaton (which says which words it found), or else by one of at
        # least as many words; or else told by an automaton of fewer words
        found_here = known.present if isinstance(known, Places) and known.state is state else None
        if found_here is None and not state.absent.keys() <= known.keys():
            return self.words(lowered)
        if spans is None:
            head = _shared_head(before, lowered)
            tail = _shared_tail(before, lowered, head)
            spans = [(head, len(before) - tail, head, len(lowered) - tail)]
        elif not spans:
            return known
        between = self._between(state, lowered, spans)
        if between is None:
            return None
        result = Places(state.absent)
        present = []
        # the words found in `before`, and those found in the spans (the others are absent)
        for word in state.absent if found_here is None else (*found_here, *between):
            places = known[word]
            if places:
                places = kept_places(places, len(word), spans, len(before))
            found = between.get(word)
            if found:
                places = tuple(sorted((*places, *found))) if places else tuple(found)
            if places:
                result[word] = places
                present.append(word)
        result.present, result.state = tuple(dict.fromkeys(present)), state
        return result

    def moved(
        self,
        before: str,
        known: Mapping[str, tuple[int, ...]],
        lowered: str,
        spans: Sequence[Replaced],
    ) -> MovedPlaces | None:
        """Where the words start in `lowered`, made from `before` (whose words start at `known`)
        by replacing `spans`: the stretches around the spans scanned now, each word's places
        moved when asked for (`MovedPlaces`); None when the automaton cannot be used."""
        state = self._state
        if not self._enabled or state is None:
            return None
        between = self._between(state, lowered, spans)
        if between is None:
            return None
        # the words `known` may hold, when it knows every word of this automaton: the others
        # are absent from `lowered` unless found around the spans
        held: frozenset[str] | None = None
        if isinstance(known, Places) and known.state is state:
            held = frozenset(known.present)
        elif type(known) is MovedPlaces and known.scanned is state.absent:
            held = known.maybe
        maybe = None if held is None else held.union(between)
        return MovedPlaces(known, spans, len(before), lowered, state.absent, between, maybe)

    @staticmethod
    def _between(
        state: _State, lowered: str, spans: Sequence[Replaced]
    ) -> dict[str, list[int]] | None:
        """The searched words of `lowered` that reach into one of the spans (new places)."""
        reach = state.longest - 1
        words = state.words
        between: dict[str, list[int]] = {}
        at = 0
        while at < len(spans):
            # the spans whose widened stretches touch, scanned together
            first = at
            while at + 1 < len(spans) and spans[at + 1][2] - reach <= spans[at][3] + reach:
                at += 1
            start = max(0, spans[first][2] - reach)
            stop = min(len(lowered), spans[at][3] + reach)
            starts = [span[2] for span in spans[first : at + 1]]
            ends = [span[3] for span in spans[first : at + 1]]
            at += 1
            try:
                matches = state.automaton.find_matches_as_indexes(
                    lowered[start:stop], overlapping=True
                )
            except UnicodeError:
                return None
            for index, begin, end in matches:
                word = words[index]
                if word is None:
                    continue
                begin, end = begin + start, end + start
                # found here alone: not wholly in what is kept between the spans (the first
                # span ending after the word's start starts before its end)
                after = bisect_right(ends, begin)
                if after < len(ends) and starts[after] < end:
                    found = between.get(word)
                    if found is None:
                        between[word] = [begin]
                    else:
                        found.append(begin)
        return between

    def _starts(self, lowered: str) -> tuple[_State, dict[int, list[int]]] | None:
        """Where each needle or word found starts, by its index in the automaton."""
        if not self._enabled:
            return None
        state = self._current()
        if state is None:
            return None
        self._scans += 1
        if len(WANTED) != state.wanted and self._scans >= _REBUILT_AFTER:
            state = self._compile()  # words the shapes asked for, looked for from now on
        try:
            matches = state.automaton.find_matches_as_indexes(lowered, overlapping=True)
        except UnicodeError:  # lone surrogates: not UTF-8
            return None
        starts: dict[int, list[int]] = {}
        for index, start, _ in matches:
            found = starts.get(index)
            if found is None:
                starts[index] = [start]
            else:
                found.append(start)
        return state, starts

    def _current(self) -> _State | None:
        if self._state is not None or self._tried:
            return self._state
        self._tried = True
        try:
            import ahocorasick_rs  # noqa: F401 - whether it is installed
        except ImportError:
            return None
        return self._compile()

    def _compile(self) -> _State:
        """The automaton of every needle, searched word and word the shapes asked for since."""
        import ahocorasick_rs

        wanted = list(WANTED)  # a copy: other threads may add to it
        searched = self._searched.union(word for word in wanted if len(word) > 1)
        patterns = sorted({n for n in (*self._gates, *searched) if len(n) > 1})
        automaton = ahocorasick_rs.AhoCorasick(
            patterns, implementation=ahocorasick_rs.Implementation.DFA
        )
        state = _State(
            automaton,
            [self._gates.get(p, _NONE) for p in patterns],
            [p if p in searched else None for p in patterns],
            {word: () for word in searched},
            len(wanted),
            max(map(len, patterns)),
        )
        self._state, self._scans = state, 0
        return state


class Places(dict[str, tuple[int, ...]]):
    """Where each searched word starts in a text (`()` for a word not in it), as an automaton
    found them (compiled_gate.py): with the words it found, and that automaton (so a change
    moves those words only)."""

    present: tuple[str, ...] = ()
    state: _State | None = None


def _known(state: _State, starts: dict[int, list[int]]) -> Places:
    known = Places(state.absent)
    words = state.words
    present = []
    for index, found in starts.items():
        word = words[index]
        if word is not None:
            known[word] = tuple(found)
            present.append(word)
    known.present, known.state = tuple(present), state
    return known


def _shared_head(before: str, after: str) -> int:
    """How many characters `before` and `after` share at their start (a binary search)."""
    low, high = 0, min(len(before), len(after))
    while low < high:
        middle = (low + high + 1) // 2
        if before[:middle] == after[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _shared_tail(before: str, after: str, head: int) -> int:
    """How many characters they share at their end, in what follows the shared start."""
    low, high = 0, min(len(before), len(after)) - head
    while low < high:
        middle = (low + high + 1) // 2
        if before[len(before) - middle :] == after[len(after) - middle :]:
            low = middle
        else:
            high = middle - 1
    return low
