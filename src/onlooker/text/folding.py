"""Where a pattern's first words are looked for in a text: its lowercase when lowercasing keeps
each character in place and makes each letter a pattern ignoring case matches an ASCII letter;
else the text folded in place. A match starts where one of its words (`literal_prefixes`, ASCII
lowercase) is, in either (tests/text/test_compiled_gate.py checks patterns on folded texts).
"""

from __future__ import annotations

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

#: Letters that match `i` and `s` when case is ignored yet stay themselves when lowercased.
_FOLDS_APART = ("\u0131", "\u017f")


def lowered_alike(text: str, lowered: str) -> bool:
    """Whether `lowered` (`text.lower()`) has each character of `text` at the same place, and
    an ASCII letter wherever a pattern ignoring case matches one in `text`: so the words a
    pattern's matches start with are found in `lowered` at least wherever they can start."""
    if text.isascii():
        return True
    global _ALIKE
    told, answer = _ALIKE
    if told is text:  # the shapes ask of the same text one after another
        return answer
    answer = len(lowered) == len(text) and not any(c in text for c in _FOLDS_APART)
    _ALIKE = (text, answer)
    return answer


#: The last text `lowered_alike` answered for that was not ASCII, and its answer (one tuple,
#: replaced whole: safe across threads).
_ALIKE: tuple[str, bool] = ("", True)
#: What `İ` (the one character whose lowercase is two), and `ı` and `ſ` (which lowercase to
#: themselves) become in a text folded: the ASCII letter each matches when case is ignored.
FOLD = {"\u0130": "i", "\u0131": "i", "\u017f": "s"}
_FOLDED: tuple[str, str] = ("", "")


def _folded(text: str) -> str:
    """`text` lowercased, each character in its place, with `İ`, `ı` and `ſ` made ASCII."""
    if "\u0130" in text:
        text = text.replace("\u0130", "i")  # before lowercasing, which would make it two
    folded = text.lower()
    for odd in ("\u0131", "\u017f"):
        if odd in folded:
            folded = folded.replace(odd, FOLD[odd])
    return folded


def starts_haystack(text: str, lowered: str) -> str:
    """Where the words a pattern's matches start with (`literal_prefixes`) are looked for:
    `lowered` when `lowered_alike`; else the text folded (`_folded`, remembered for the last
    text), where each character that matches an ASCII letter ignoring case is that letter
    (perhaps more: a start where no match is only costs a try): a match starts where one of its
    words is, in either."""
    if lowered_alike(text, lowered):
        return lowered
    global _FOLDED
    told, folded = _FOLDED
    if told is not text:
        folded = _folded(text)
        _FOLDED = (text, folded)
    return folded
