"""The quality gate between a model's answer and the memory store (specs/memory.md): a memory
that is numeric, too short, an echo of the prompt or the schema, or a repeat of one already kept
is dropped, and counted by reason. A junk line in an agent's context is worse than none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ._memories import Extracted

MIN_TITLE = 4
"""Characters a title needs."""
MIN_CONTENT_WORDS = 3
"""Words a content needs."""
SCHEMA_WORDS = frozenset({"title", "content", "memory", "memories", "...", "string", "none", "n/a"})
"""Texts that only repeat the answer's schema or a placeholder."""
_NOT_WORD = re.compile(r"[^\w]+")
_LETTER = re.compile(r"[^\W\d_]")


@dataclass(frozen=True, slots=True)
class Gated:
    """What passed the gate, and how many were dropped for each reason."""

    kept: tuple[Extracted, ...] = ()
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def dropped_count(self) -> int:
        return sum(self.dropped.values())


def gate(
    found: Sequence[Extracted], *, prompt: str, existing: Iterable[str] = (), by_rule: bool = False
) -> Gated:
    """Keep the memories worth a place in a later session's context. `prompt` is the text the
    model was given (its instructions and events); `existing` the texts of memories kept
    already (`title: content`). Memories made `by_rule` are only checked for repeats of the
    whole line."""
    seen = {_key(text) for text in existing}
    echoes = {_key(line) for line in prompt.splitlines() if len(_key(line)) >= 12}
    kept: list[Extracted] = []
    dropped: dict[str, int] = {}
    for item in found:
        whole = _key(f"{item.title}: {item.content}")
        if by_rule:  # a rule line's content (`passes`) is its title's: only the line repeats
            reason = "repeats a memory" if whole in seen else ""
        else:
            reason = _reason(item, echoes, seen)
        if reason:
            dropped[reason] = dropped.get(reason, 0) + 1
            continue
        seen.add(whole)
        if not by_rule:
            seen.add(_key(item.content))
        kept.append(item)
    return Gated(tuple(kept), dropped)


def _reason(item: Extracted, echoes: set[str], seen: set[str]) -> str:
    title, content = item.title.strip(), item.content.strip()
    if not _LETTER.search(title) or not _LETTER.search(content):
        return "numeric"
    if len(title) < MIN_TITLE or len(content.split()) < MIN_CONTENT_WORDS:
        return "too short"
    if _key(title) in SCHEMA_WORDS or _key(content) in SCHEMA_WORDS:
        return "echoes the schema"
    if _key(content) in echoes or _key(f"{title} {content}") in echoes:
        return "echoes the prompt"
    return _repeat(item, seen)


def _repeat(item: Extracted, seen: set[str]) -> str:
    if _key(f"{item.title}: {item.content}") in seen or _key(item.content) in seen:
        return "repeats a memory"
    return ""


def _key(text: str) -> str:
    """Text as compared: case-folded words, punctuation and spacing ignored."""
    return _NOT_WORD.sub(" ", text.casefold()).strip()
