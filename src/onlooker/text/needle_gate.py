"""Which needles (lowercase substrings that gate the shapes) a text holds, found in one pass.

Four hundred `needle in text` tests cost some 400 scans of the text; one pattern built as a trie
of every needle (`g(?:hp_|lpat-|…)`) and tried at each position costs one scan, but a slow one
(the pattern's first branch is tried at every character). A needle lies inside one token (the
text split at whitespace and at punctuation no needle holds), and most tokens of a text recur
across texts (names, keywords, punctuation), so each distinct token is scanned once and what it
holds remembered; the few needles with whitespace or such punctuation are tested with `in`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: Tokens up to this length are remembered, up to this many (then forgotten all at once): a
#: bound on memory whatever the texts; past it a token is scanned each time, which stays linear.
_REMEMBERED_LENGTH = 64
_REMEMBERED_TOKENS = 50_000
_NONE: frozenset[str] = frozenset()
#: Punctuation that also ends a token (JSON's `,` and `}` above all), unless some needle holds it.
_BREAKS = ",})';#"


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


class NeedleGate:
    """Finds, in a lowercased text, every needle of a fixed set."""

    def __init__(self, needles: Iterable[str]) -> None:
        self.needles = frozenset(n for n in needles if n)
        self._breaks = tuple(c for c in _BREAKS if not any(c in n for n in self.needles))
        self._spaced = tuple(
            sorted(n for n in self.needles if any(c.isspace() or c in self._breaks for c in n))
        )
        # At each position the longest needle starting there (greedy, so the longest); every
        # needle starting there is a prefix of it.
        self._pattern = re.compile(f"(?=({_trie_pattern(self.needles)}))")
        self._prefixes = {
            needle: frozenset(n for n in self.needles if needle.startswith(n))
            for needle in self.needles
        }
        self._tokens: dict[str, frozenset[str]] = {}

    def present(self, lowered: str) -> frozenset[str]:
        """The needles that occur in `lowered`."""
        found: set[str] = {needle for needle in self._spaced if needle in lowered}
        tokens = self._tokens
        for char in self._breaks:
            lowered = lowered.replace(char, " ")
        for token in set(lowered.split()):
            held = tokens.get(token)
            if held is None:
                held = self._scan(token)
                if len(token) <= _REMEMBERED_LENGTH:
                    if len(tokens) >= _REMEMBERED_TOKENS:
                        tokens.clear()
                    tokens[token] = held
            if held:
                found |= held
        return frozenset(found)

    def _scan(self, lowered: str) -> frozenset[str]:
        """The needles in `lowered`, by the trie tried at each position."""
        longest = set(self._pattern.findall(lowered))
        if not longest:
            return _NONE
        if len(longest) == 1:
            return self._prefixes[longest.pop()]
        return frozenset().union(*(self._prefixes[found] for found in longest))
