"""Where a pattern's first words are looked for in a text: its lowercase when lowercasing keeps
each character in place and makes each letter a pattern ignoring case matches an ASCII letter;
else the text folded in place. A match starts where one of its words (`literal_prefixes`, ASCII
lowercase) is, in either (tests/text/test_compiled_gate.py checks patterns on folded texts).
"""

from __future__ import annotations

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

_ASCII_BYTES = bytes(range(128))


def utf8(text: str) -> bytes:
    """`text` in UTF-8 (lone surrogates passed through), kept for the last text: lowercasing it
    and the shapes' byte translations (`_shape.alnum_run`) read the same text."""
    global _ENCODED
    told, encoded = _ENCODED
    if told is not text:
        encoded = text.encode("utf-8", "surrogatepass")
        _ENCODED = (text, encoded)
    return encoded


#: The last text `utf8` encoded, and its bytes (one tuple, replaced whole: safe across threads).
_ENCODED: tuple[str, bytes] = ("", b"")

#: Places of the sign `holds` looks from, at the most, before it searches for the needles.
_MOST_SIGNS = 64


def holds(text: str, needles: tuple[str, ...], sign: str) -> bool:
    """Whether `text` holds one of `needles`, each of which holds the character `sign` (a rare
    one: `<`, `>`, `$`). In a text that is not ASCII a needle of several characters is searched
    for slowly (some 15 µs per 10 kB each), one character at memory speed: so each place of the
    sign is found and the needles compared there; past _MOST_SIGNS of them, searched for."""
    if text.isascii():
        return any(needle in text for needle in needles)
    at = text.find(sign)
    for _ in range(_MOST_SIGNS):
        if at == -1:
            return False
        for needle in needles:
            start = at - needle.index(sign)
            if start >= 0 and text.startswith(needle, start):
                return True
        at = text.find(sign, at + 1)
    return at != -1 and any(needle in text for needle in needles)


def lowercase(text: str) -> str:
    """`text.lower()`, faster for a text whose characters past ASCII all lowercase to themselves
    (dashes, arrows, signs; most prose and code that is not ASCII): its UTF-8 bytes lowercased
    (which lowercases the ASCII letters alone) and decoded. Those characters are told apart by
    deleting the ASCII bytes; when one of them is changed by lowercasing (a letter such as `É`,
    `İ`, the Kelvin sign, or `Σ`, whose lowercase depends on its neighbours), `text.lower()`."""
    if text.isascii():
        return text.lower()
    encoded = utf8(text)
    others = encoded.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
    if others.lower() != others:
        return text.lower()
    return encoded.lower().decode("utf-8", "surrogatepass")


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
#: The last text folded, its folding, and (when the folding is its lowercase with `ı` and `ſ`
#: made ASCII) that lowercase and where it holds those letters (see `folded_from`).
_FOLDED: tuple[str, str, tuple[str, tuple[int, ...]] | None] = ("", "", None)


def _folded(text: str, lowered: str) -> tuple[str, tuple[str, tuple[int, ...]] | None]:
    """`text` lowercased, each character in its place, with `İ`, `ı` and `ſ` made ASCII; and,
    without `İ`, `lowered` (its lowercase, which it then is but for `ı` and `ſ`) and where those
    are. Lowercasing a text that is not ASCII is slow (some 10 ms a megabyte): `lowered` is
    reused when it can be."""
    if "\u0130" not in text and len(lowered) == len(text):
        folded = lowered.replace("\u0131", "i").replace("\u017f", "s")
        return folded, (lowered, _places(lowered, ("\u0131", "\u017f")))
    folded = text.replace("\u0130", "i")  # before lowercasing, which would make it two
    folded = folded.lower()
    for odd_letter in ("\u0131", "\u017f"):
        if odd_letter in folded:
            folded = folded.replace(odd_letter, FOLD[odd_letter])
    return folded, None


def _places(text: str, letters: tuple[str, ...]) -> tuple[int, ...]:
    found = []
    for letter in letters:
        at = text.find(letter)
        while at != -1:
            found.append(at)
            at = text.find(letter, at + 1)
    return tuple(sorted(found))


def folded_from(folded: str) -> tuple[str, tuple[int, ...]] | None:
    """For the text `starts_haystack` folded last: the lowercase it was made from, alike it but
    where it holds `ı` or `ſ`, and those places (so the words it holds are where they are in
    the lowercase, and more only around those places); else None."""
    _, told_folded, source = _FOLDED
    return source if told_folded is folded else None


def starts_haystack(text: str, lowered: str) -> str:
    """Where the words a pattern's matches start with (`literal_prefixes`) are looked for:
    `lowered` when `lowered_alike`; else the text folded (`_folded`, remembered for the last
    text), where each character that matches an ASCII letter ignoring case is that letter
    (perhaps more: a start where no match is only costs a try): a match starts where one of its
    words is, in either."""
    if lowered_alike(text, lowered):
        return lowered
    global _FOLDED
    told, folded, source = _FOLDED
    if told is not text or (source is not None and source[0] is not lowered):
        folded, source = _folded(text, lowered)
        _FOLDED = (text, folded, source)
    return folded


def ascii_lowered(text: str) -> str:
    """`text` with its ASCII capitals made small and every other character as it is (so each
    stays in its place): `bytes.lower` on its UTF-8, some 50 times faster than `str.translate`
    with a table. Kept for the last text: the shapes ask of the same text one after another."""
    global _ASCII_LOWERED
    told, lowered = _ASCII_LOWERED
    if told is not text:
        encoded = text.encode("utf-8", "surrogatepass")
        lowered = encoded.lower().decode("utf-8", "surrogatepass")
        _ASCII_LOWERED = (text, lowered)
    return lowered


_ASCII_LOWERED: tuple[str, str] = ("", "")
