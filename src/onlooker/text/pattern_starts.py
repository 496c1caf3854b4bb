"""The words every match of a pattern starts with, read from the pattern's parse: so the pattern
is tried only where one of them starts in a text (literal_starts.py), not at every position.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from .folding import FOLD

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).


#: Prefixes are followed this far, and a pattern with more prefixes than this is tried as it is.
_PREFIX_LENGTH = 8
_MOST_PREFIXES = 24
_NOT_WORDS = "the pattern's start is not a handful of words"


def literal_prefixes(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Lowercase words, one of which starts every match of `pattern` in a text, found in the text
    lowercased when it is `lowered_alike` (so, for a pattern that ignores case or not): read from
    the pattern's parse, skipping what takes no characters (`\\b`, lookarounds), through groups,
    alternatives, small character classes and repeats (`(?:proxy-)?auth…`: `proxy-au`, `authoriz`).
    None when some match may start otherwise, or the words would be too many or too short (one
    letter, digit or space: one sign such as `?` or `&` is rare enough) to find faster than the
    engine tries the pattern."""
    try:
        parser: Any = importlib.import_module("re._parser")
        parsed = parser.parse(pattern.pattern, pattern.flags)
        found = _prefixes(list(parsed.data), 0, "", importlib.import_module("re._constants"))
    except (ImportError, AttributeError, ValueError, RecursionError):  # ValueError: gave up
        return None
    if not found or len(found) > _MOST_PREFIXES:
        return None
    if any(len(word) < 2 and (word.isalnum() or word.isspace()) for word in found):
        return None  # a letter, a digit or a space: as common as the tries they would save
    # `looker` finds where `looker:` starts, and more: the longer is not looked for
    return tuple(sorted(w for w in found if not any(w != v and w.startswith(v) for v in found)))


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
    if op in _repeats(sre) and value[0] == 0 and len(head) < 2:
        # `(?:proxy-)?`, `x*`: perhaps none of it (read on only while the words are too short
        # to look for; longer, they end here)
        _, high, item = value
        try:
            found = _prefixes(items, at + 1, head, sre)
            if high != 0:  # once, then what follows it when it is at most once
                found |= _prefixes([*item.data, *(rest if high == 1 else ())], 0, head, sre)
        except ValueError:
            found = set()
        if found and len(found) <= _MOST_PREFIXES:
            return found
        if not head:
            raise ValueError(_NOT_WORDS)
        return {head}  # else the words end here
    if not head:  # a class, anything else: the words end here
        raise ValueError(_NOT_WORDS)
    return {head}


def _repeats(sre: Any) -> tuple[Any, ...]:
    return tuple(getattr(sre, name) for name in _REPEAT_NAMES if hasattr(sre, name))


_REPEAT_NAMES = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


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
