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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).


def word_starts(haystack: str, words: Iterable[str]) -> list[int]:
    """Every position in `haystack` where one of `words` begins, in order, each once."""
    found: set[int] = set()
    for word in words:
        found.update(positions(haystack, word))
    return sorted(found)


#: The last text searched and, for each word, where it starts in it: the shapes run one after
#: another on the same lowercased text and look for the same words (`pass`, `token`, `key`), so
#: each is searched for once per text. One tuple, replaced whole: safe across threads.
_LAST: tuple[str, dict[str, tuple[int, ...]]] = ("", {})


def positions(haystack: str, word: str) -> tuple[int, ...]:
    """Where `word` starts in `haystack` (overlapping occurrences included), in order."""
    global _LAST
    last_text, known = _LAST
    if last_text is not haystack:
        known = {}
        _LAST = (haystack, known)
    found = known.get(word)
    if found is None:
        starts = []
        at = haystack.find(word)
        while at != -1:
            starts.append(at)
            at = haystack.find(word, at + 1)
        found = known[word] = tuple(starts)
    return found


@dataclass(frozen=True, slots=True)
class Started:
    """A pattern that cannot match without starting with one of `words` (as they are written in
    the text it is run on: lowercase words for a pattern run on lowercased text)."""

    pattern: re.Pattern[str]
    words: tuple[str, ...]

    def finditer(self, haystack: str) -> Iterator[re.Match[str]]:
        """`pattern.finditer(haystack)`: its matches never empty, each starting at a word."""
        done = 0
        for start in word_starts(haystack, self.words):
            if start < done:
                continue
            found = self.pattern.match(haystack, start)
            if found is not None:
                done = found.end()
                yield found

    def sub(self, replace: str | Callable[[re.Match[str]], str], text: str) -> str:
        """`pattern.sub(replace, text)` (a function, or a replacement without group references)."""
        pieces: list[str] = []
        done = 0
        for found in self.finditer(text):
            pieces.append(text[done : found.start()])
            pieces.append(replace if isinstance(replace, str) else replace(found))
            done = found.end()
        return "".join(pieces) + text[done:] if pieces else text
