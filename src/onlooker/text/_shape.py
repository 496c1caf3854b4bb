"""What every secret shape is to the redactor: a kind, the needles that gate it, and a function
that takes a text (and the same text lowercased) and returns it with that kind's secrets replaced.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .folding import utf8
from .literal_starts import sub_from_starts

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

Apply = Callable[[str, str], str]
"""(text, the text lowercased) -> the text with this shape's secrets replaced."""


@dataclass(frozen=True, slots=True)
class Shape:
    """One kind of secret: tried only when one of its needles is in the lowercased text."""

    kind: str
    needles: tuple[str, ...]
    apply: Apply


def byte_table(chars: str) -> bytes:
    """A `bytes.translate` table: each byte of `chars` (ASCII) to `a`, any other to a space."""
    return bytes(97 if chr(c) in chars else 32 for c in range(256))


_ALNUM_BYTES = byte_table(string.ascii_letters + string.digits)


def alnum_run(text: str, length: int, table: bytes = _ALNUM_BYTES) -> bool:
    """Whether `text` holds `length` ASCII letters and digits (or characters of another
    `byte_table`) in a row: a translation and a substring search, some 20 times faster than a
    pattern such as `[A-Za-z0-9]{30}`. The translation of the last text is kept: the shapes
    ask of the same text one after another."""
    global _TRANSLATED
    told, told_table, translated = _TRANSLATED
    if told is not text or told_table is not table:
        translated = utf8(text).translate(table)
        _TRANSLATED = (text, table, translated)
    return b"a" * length in translated


#: The last text `alnum_run` translated, the table, and the translation (one tuple, replaced
#: whole: safe across threads).
_TRANSLATED: tuple[str, bytes, bytes] = ("", _ALNUM_BYTES, b"")


def mark(kind: str) -> str:
    """What a secret of `kind` is replaced with."""
    return f"[REDACTED:{kind}]"


def already_redacted(value: str) -> bool:
    return "[REDACTED:" in value


#: Words that make a value of lowercase words a placeholder (`your-api-key-here`).
PLACEHOLDER_WORDS = frozenset({
    "your", "here", "placeholder", "example", "changeme", "insert", "replace", "dummy", "fake",
    "sample", "goes", "put",
})  # fmt: skip
_WORDS_JOINED = re.compile(r"[a-z]+(?:[-_ ][a-z]+){1,8}")


def placeholder(value: str) -> bool:
    """A documentation placeholder: lowercase words saying what goes there (`your-api-key-here`,
    `insert_token_here`). A vendor's shape filled with one character (`sk-…-xxxx…`, `AAAA…`)
    is redacted as the secret it stands for: tests and examples use them so."""
    return bool(_WORDS_JOINED.fullmatch(value)) and not PLACEHOLDER_WORDS.isdisjoint(
        re.split(r"[-_ ]", value)
    )


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
    """A shape's function from its pattern: the whole match (group 0) or one group replaced;
    tried only where the words its matches start with start, when it has such words
    (`literal_starts.sub_from_starts`)."""

    def replace_one(match: re.Match[str]) -> str:
        return replace_group(match, group, kind)

    replace = whole_match(kind) if group == 0 else replace_one
    return lambda text, lowered: sub_from_starts(pattern, replace, text, lowered)


def run_starts(text: str, words: Iterable[str], chars: frozenset[str], reach: int) -> list[int]:
    """Where the runs of `chars` holding one of `words` (as written) start, in order, each once:
    for a pattern whose every match is such a run from its start (a lookbehind for none of
    `chars`, then only `chars`), with the word ending at most `reach` characters after the
    start. Each found by `str.find` and walked back at most `reach` characters, so a text of
    such words costs linear time; a run starting farther back holds no match from that word."""
    starts: set[int] = set()
    for word in words:
        at = text.find(word)
        while at != -1:
            start, limit = at, at + len(word) - reach
            while start > 0 and text[start - 1] in chars and start > limit:
                start -= 1
            if start == 0 or text[start - 1] not in chars:
                starts.add(start)
            at = text.find(word, at + 1)
    return sorted(starts)


def sub_at(
    pattern: re.Pattern[str],
    replace: Callable[[re.Match[str]], str],
    text: str,
    starts: Iterable[int],
) -> str:
    """`pattern.sub(replace, text)` for a pattern whose every match starts at one of `starts`
    (in order): the pattern tried only there, each not inside a match before it. `text` itself
    (the same object) when no match was replaced by something else."""
    pieces: list[str] = []
    done = matched = 0
    for start in starts:
        if start < matched:
            continue
        found = pattern.match(text, start)
        if found is not None:
            matched = found.end()
            replaced = replace(found)
            if replaced != found.group(0):
                pieces.append(text[done:start])
                pieces.append(replaced)
                done = matched
    return "".join(pieces) + text[done:] if pieces else text


def whole_match(kind: str) -> Callable[[re.Match[str]], str]:
    """What `regex_apply` replaces a match with when group 0 is the secret: the mark, or the
    match itself when it is a placeholder."""
    replacement = mark(kind)

    def replace(match: re.Match[str]) -> str:
        return match.group(0) if placeholder(match.group(0)) else replacement

    return replace


def replace_group(match: re.Match[str], group: int, kind: str) -> str:
    """The match with `group` replaced by the mark (left alone when it holds one already)."""
    value = match.group(group)
    if value is None or already_redacted(value) or placeholder(value):
        return match.group(0)
    start, end = match.span(group)
    whole = match.group(0)
    offset = match.start(0)
    return f"{whole[: start - offset]}{mark(kind)}{whole[end - offset :]}"


_KEYWORDS_FIRST = re.compile(
    r"\(\?i\)(?:(?P<b>\\b)|\(\?<!(?P<before>\[(?:\\[wsd-]|[^A-Za-z\]\\])+\])\))?(?P<scoped>\(\?i:)?"
    r"(?:\(\?:(?P<alts>[A-Za-z][\w \-]*\??[\w \-]*(?:\|[A-Za-z][\w \-]*\??[\w \-]*)*)\)"
    r"|(?P<word>[A-Za-z]\w*)(?![*+?{]))"
)


def keywords_first(pattern: str) -> str:
    """`(?i)(?:looker|asana)…` as `[LlAa](?i:(?:(?<=l)ooker|(?<=a)sana)…)`, `(?i)\\bbearer…` as
    `[Bb](?<!\\w[\\s\\S])(?i:(?:(?<=b)earer)…)` (so too after a lookbehind of one class without
    letters, `(?<![\\w-])`): the same matches, but the engine skips, without trying the pattern,
    every character no keyword starts with (a pattern ignoring case and starting with a group or
    a boundary is otherwise tried at every position). Patterns of any other form, with the
    keywords optional, or with a `|` outside groups, are returned as they are."""
    found = _KEYWORDS_FIRST.match(pattern)
    if (
        found is None
        or _top_level_bar(pattern[found.end() :])
        or pattern[found.end() : found.end() + 1] in ("?", "*", "+", "{")
    ):
        return pattern
    alts = (found.group("alts") or found.group("word")).split("|")
    if any(a[1:2] == "?" for a in alts):
        return pattern  # a first letter that may be missing
    firsts = {a[0].lower() for a in alts}
    chars = "".join(sorted(c for c in _FOLDS if c.lower() in firsts or _FOLDS[c] in firsts))
    chars += "".join(sorted(firsts | {c.upper() for c in firsts}))
    before = r"\w" if found.group("b") else found.group("before")
    boundary = f"(?<!{before}[\\s\\S])" if before else ""
    keywords = "|".join(f"(?<={a[0]}){a[1:]}" for a in alts)
    rest = pattern[found.end() :]
    return f"[{chars}]{boundary}(?i:{found.group('scoped') or ''}(?:{keywords}){rest})"


#: Characters that match an ASCII letter when case is ignored without lowercasing to it.
_FOLDS = {"\u017f": "s", "\u0131": "i", "\u0130": "i", "\u212a": "k"}


def _top_level_bar(pattern: str) -> bool:
    depth = 0
    at = 0
    in_class = False
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            at += 2 if pattern[at + 1 : at + 2] in ("]", "^") else 1
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth <= 0:
            return True
        at += 1
    return False
