"""Near-duplicate memories merge (specs/memory.md): a new memory that says nearly what an older
one of the project says (most of their words shared) takes its place: the older is superseded
(it leaves search and injection; the journal keeps it) and its files carry over to the new one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..store.memory_records import Memory
from ._memories import Extracted

SIMILAR = 0.6
"""Share of their words (Jaccard, words of 3 letters or more) above which two memories are
near duplicates."""
_WORD = re.compile(r"[^\W_]{3,}")


def words(text: str) -> frozenset[str]:
    return frozenset(word.casefold() for word in _WORD.findall(text))


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of two texts' word sets (0.0 when either has none)."""
    left, right = words(a), words(b)
    return len(left & right) / len(left | right) if left and right else 0.0


def merge_near_duplicates(
    found: Sequence[Extracted], known: Sequence[Memory]
) -> tuple[list[Extracted], list[int]]:
    """`found` with the files of the older memories each replaces, and the ids it replaces."""
    merged: list[Extracted] = []
    replaced: list[int] = []
    for item in found:
        text = f"{item.title} {item.content}"
        older = [
            m for m in known
            if m.id not in replaced and similarity(text, f"{m.title} {m.content}") >= SIMILAR
        ]  # fmt: skip
        files = tuple(dict.fromkeys((*item.files, *(p for m in older for p in m.files))))
        merged.append(replace(item, files=files))
        replaced.extend(m.id for m in older)
    return merged, replaced
