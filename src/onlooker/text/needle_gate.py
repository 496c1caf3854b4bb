"""Which needles (lowercase substrings that gate the shapes) a text holds, found in one pass.

Four hundred `needle in text` tests cost some 400 scans of the text; one pattern built as a trie
of every needle (`g(?:hp_|lpat-|…)`) and tried at each position costs one scan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).


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
    """Finds, in a lowercased text, every needle of a fixed set in one pass."""

    def __init__(self, needles: Iterable[str]) -> None:
        self.needles = frozenset(n for n in needles if n)
        # At each position the longest needle starting there (greedy, so the longest); every
        # needle starting there is a prefix of it.
        self._pattern = re.compile(f"(?=({_trie_pattern(self.needles)}))")
        self._prefixes = {
            needle: frozenset(n for n in self.needles if needle.startswith(n))
            for needle in self.needles
        }

    def present(self, lowered: str) -> frozenset[str]:
        """The needles that occur in `lowered`."""
        longest = set(self._pattern.findall(lowered))
        if not longest:
            return frozenset()
        if len(longest) == 1:
            return self._prefixes[longest.pop()]
        return frozenset().union(*(self._prefixes[found] for found in longest))
