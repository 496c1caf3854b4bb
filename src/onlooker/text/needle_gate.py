"""Which needles (lowercase substrings that gate the shapes) a text holds.

Four hundred `needle in text` tests cost some 400 scans of the text; one pattern built as a trie
of every needle (`g(?:hp_|lpat-|…)`) tried at each position costs one scan, but a slow one (its
first branch is tried at every character). Here the text is cut into runs of word characters
(`[a-z0-9_]+`: its UTF-8 bytes translated, every other byte to a space, and split). A needle of
word characters lies inside one run, and runs recur across texts (names, keywords, words), so
a run is scanned with the trie once and what it holds remembered (a text mostly of new runs is
scanned in one call). A needle with other characters (`glpat-`, `://`) is tested with `in`
only when its longest stretch of word characters (`glpat`) is in a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: Runs up to this length are remembered, up to this many (then forgotten all at once): a bound
#: on memory whatever the texts; past it a run is scanned each time, which stays linear.
_REMEMBERED_LENGTH = 64
_REMEMBERED_RUNS = 50_000
#: New runs scanned one by one (and remembered) per text; the others are scanned in one call.
_REMEMBERED_PER_TEXT = 256
_RUN = re.compile(r"[a-z0-9_]+")
#: Each byte to itself if it is a word character (`[a-z0-9_]`), else to a space.
_WORD_BYTES = bytes(
    c if chr(c).isascii() and (chr(c).isalnum() or c == 95) else 32 for c in range(256)
)
_NONE: frozenset[str] = frozenset()


def _trie_pattern(needles: Iterable[str]) -> str:
    trie: dict[str, Any] = {}
    for needle in needles:
        node = trie
        for char in needle:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        ends_here = "" in node
        if len(branches) == 1 and not ends_here:
            return branches[0]
        group = "(?:" + "|".join(branches) + ")"
        return group + "?" if ends_here else group

    return build(trie)


def _core(needle: str) -> str:
    """The longest stretch of word characters in `needle` ('' when it has none)."""
    return max(_RUN.findall(needle), key=len, default="")


class NeedleGate:
    """Finds, in a lowercased text, every needle of a fixed set."""

    def __init__(self, needles: Iterable[str]) -> None:
        self.needles = frozenset(n for n in needles if n)
        words = frozenset(n for n in self.needles if _RUN.fullmatch(n))
        others = self.needles - words
        #: Needles with other characters, by the word stretch that must be in a run for them to be
        #: there at all; those with none are always tested.
        self._by_core: dict[str, tuple[str, ...]] = {}
        for needle in sorted(others):
            core = _core(needle)
            self._by_core[core] = (*self._by_core.get(core, ()), needle)
        self._bare = self._by_core.pop("", ())
        self._words = words
        #: What each of the others needs besides its core (`_Needs`), tested before it is.
        self._needs = {needle: _Needs.of(needle) for needle in others}
        stretches = frozenset().union(*(needs.stretches for needs in self._needs.values()))
        self._trie = _Trie(words | self._by_core.keys() | stretches)
        self._runs: dict[bytes, frozenset[str]] = {}

    def present(self, lowered: str) -> frozenset[str]:
        """The needles that occur in `lowered`."""
        found = self._in_runs(lowered)
        by_core, needs = self._by_core, self._needs
        others = [
            n
            for core in found & by_core.keys()
            for n in by_core[core]
            if needs[n].met(lowered, found) and n in lowered
        ]
        others.extend(n for n in self._bare if needs[n].met(lowered, found) and n in lowered)
        return frozenset(found & self._words).union(others)

    def opened(self, lowered: str, gates: dict[str, frozenset[int]]) -> frozenset[int]:
        """What the needles in `lowered` open, each needle opening `gates[needle]`: the same as
        the union over `present(lowered)`, but a needle that opens nothing more than the ones
        already found is not searched for."""
        return self.opened_and_words(lowered, gates)[0]

    def opened_and_words(
        self, lowered: str, gates: dict[str, frozenset[int]]
    ) -> tuple[frozenset[int], set[str]]:
        """`opened`, and the needles of word characters (and the word stretches of the others)
        that are in `lowered`: every other one is not."""
        found = self._in_runs(lowered)
        needs = self._needs
        opened: frozenset[int] = frozenset().union(*(gates[n] for n in found & self._words))
        for needle in (n for core in found & self._by_core.keys() for n in self._by_core[core]):
            if (
                not gates[needle] <= opened
                and needs[needle].met(lowered, found)
                and needle in lowered
            ):
                opened |= gates[needle]
        for needle in self._bare:
            if (
                not gates[needle] <= opened
                and needs[needle].met(lowered, found)
                and needle in lowered
            ):
                opened |= gates[needle]
        return opened, found

    def absent(self, lowered: str, found: set[str], words: dict[str, str]) -> list[str]:
        """Of `words` (each with its longest word stretch), those surely not in `lowered`, whose
        word stretches found in its runs are `found` (`opened_and_words`): its stretch not
        there, or for one given to the gate with other characters, its needs not met."""
        needs = self._needs
        return [
            word
            for word, stretch in words.items()
            if stretch not in found or (word in needs and not needs[word].met(lowered, found))
        ]

    def _in_runs(self, lowered: str) -> set[str]:
        """The needles of word characters, and the word stretches of the others (`_Needs`), in
        `lowered`."""
        runs = self._runs
        # each run once: a text repeats most of its runs (names, keywords)
        words = list(set(lowered.encode("utf-8", "surrogatepass").translate(_WORD_BYTES).split()))
        held: list[Any] = list(map(runs.get, words))
        if None in held:
            held = self._scan_new(words, held)
        return set().union(*held)

    def _scan_new(self, words: list[bytes], held: list[frozenset[str] | None]) -> list[Any]:
        """What each run not seen before holds, the first few scanned one by one and remembered,
        the rest (a text mostly new: hashes, random ids) scanned together in one call."""
        runs = self._runs
        new = list(
            dict.fromkeys(run for run, seen in zip(words, held, strict=True) if seen is None)
        )
        kept = [seen for seen in held if seen is not None]
        rest = new[_REMEMBERED_PER_TEXT:]
        for run in new[:_REMEMBERED_PER_TEXT]:
            if len(run) > _REMEMBERED_LENGTH:
                rest.append(run)
                continue
            found = self._trie.scan(b" " + run + b" ")
            if len(runs) >= _REMEMBERED_RUNS:
                runs.clear()
            runs[run] = found  # read back by no one here: another thread may clear it
            kept.append(found)
        if rest:
            kept.append(self._trie.scan(b" " + b" ".join(rest) + b" "))
        return kept


#: Characters that are not word characters, the commonest in texts last: a needle's rarest
#: ones are looked for first.
_COMMON = " \n.-_:=/\"',()"


@dataclass(frozen=True, slots=True)
class _Needs:
    """What a needle that is not all word characters needs to be in a text, each much cheaper to
    test than the needle itself (a substring search of a short needle runs through the text at
    some 1 ns a character; of one character, at memory speed): each of its other characters
    (`~` of `q~`, the tab of `\\ttrue\\t`), and each of its stretches of word characters in
    a run, at the run's end when another character follows it in the needle, at its start when
    one comes before (`sk-` needs a run ending in `sk`; `x-pm-key`, the run `pm`). A stretch is
    written with a space for each such end (`sk `, ` pm `), as the trie finds it in a run
    written between spaces."""

    chars: tuple[str, ...]
    stretches: frozenset[str]

    @classmethod
    def of(cls, needle: str) -> _Needs:
        if not needle.isascii():
            return cls((), frozenset())
        chars = sorted(
            {c for c in needle if not _RUN.fullmatch(c)}, key=lambda c: (_COMMON.find(c), c)
        )
        stretches = frozenset(
            " " * (found.start() > 0) + found.group() + " " * (found.end() < len(needle))
            for found in _RUN.finditer(needle)
        )
        return cls(tuple(chars), stretches)

    def met(self, lowered: str, found: set[str]) -> bool:
        """Whether `lowered`, whose runs hold the stretches `found`, meets these needs."""
        return all(char in lowered for char in self.chars) and self.stretches <= found


class _Trie:
    """Every needle of a set found in a text (its UTF-8 bytes) by one trie pattern tried at each
    position."""

    def __init__(self, needles: frozenset[str]) -> None:
        # At each position the longest needle starting there (greedy, so the longest); every
        # needle starting there is a prefix of it.
        self._pattern = re.compile(f"(?=({_trie_pattern(needles)}))".encode())
        self._prefixes = {
            needle.encode(): frozenset(n for n in needles if needle.startswith(n))
            for needle in needles
        }

    def scan(self, lowered: bytes) -> frozenset[str]:
        longest = set(self._pattern.findall(lowered))
        if not longest:
            return _NONE
        if len(longest) == 1:
            return self._prefixes[longest.pop()]
        return frozenset().union(*(self._prefixes[found] for found in longest))
