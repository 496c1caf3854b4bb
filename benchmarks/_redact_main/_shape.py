"""What every secret shape is to the redactor: a kind, the needles that gate it, and a function
that takes a text (and the same text lowercased) and returns it with that kind's secrets replaced.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

Apply = Callable[[str, str], str]
"""(text, the text lowercased) -> the text with this shape's secrets replaced."""


@dataclass(frozen=True, slots=True)
class Shape:
    """One kind of secret: tried only when one of its needles is in the lowercased text."""

    kind: str
    needles: tuple[str, ...]
    apply: Apply


def mark(kind: str) -> str:
    """What a secret of `kind` is replaced with."""
    return f"[REDACTED:{kind}]"


def already_redacted(value: str) -> bool:
    return "[REDACTED:" in value


def replace_spans(text: str, spans: Iterable[tuple[int, int]], kind: str) -> str:
    """`text` with each (start, end) span, in order and not overlapping, replaced by the mark."""
    pieces: list[str] = []
    done = 0
    for start, end in spans:
        if start < done:
            continue
        pieces.append(text[done:start])
        pieces.append(mark(kind))
        done = end
    return "".join(pieces) + text[done:] if pieces else text


def regex_apply(pattern: re.Pattern[str], group: int, kind: str) -> Apply:
    """A shape's function from its pattern: the whole match (group 0) or one group replaced."""
    if group == 0:
        replacement = mark(kind)
        return lambda text, lowered: pattern.sub(replacement, text)

    def replace(match: re.Match[str]) -> str:
        return replace_group(match, group, kind)

    return lambda text, lowered: pattern.sub(replace, text)


def replace_group(match: re.Match[str], group: int, kind: str) -> str:
    """The match with `group` replaced by the mark (left alone when it holds one already)."""
    value = match.group(group)
    if value is None or already_redacted(value):
        return match.group(0)
    start, end = match.span(group)
    whole = match.group(0)
    offset = match.start(0)
    return f"{whole[: start - offset]}{mark(kind)}{whole[end - offset :]}"
