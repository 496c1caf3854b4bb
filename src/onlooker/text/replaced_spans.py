"""Where a shape changed a text: the spans it replaced with marks (`[REDACTED:<kind>]`), found
by comparing the text before and after it, so that the text's lowercase and the places of the
words the shapes search for are brought up to date where it changed, not made anew.

A shape that replaces a few spans in a long text would otherwise cost a whole lowercasing (some
10 ms a megabyte for a text that is not ASCII) and a whole scan for the words, each time: on a
megabyte, a dozen shapes that each find something cost more than all the shapes' searches.

Every piece of the text after that `replaced_spans` calls unchanged is compared equal to the
piece of the text before it is said to be; what lies between is taken as changed. So the spans
are right whatever the texts (a wrong guess of where a replaced span ended only makes a span
longer, or gives up: None, and the caller does it all anew).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence

# Imports nothing outside text/: the hook client loads this folder by path (see redact.py).

Replaced = tuple[int, int, int, int]
"""(start, end) of a span in the text before, and (start, end) of what replaced it after."""

_MARK = "[REDACTED:"
#: How far before a difference a mark that holds it may start (`[REDACTED:` and the kind).
_MARK_REACH = 120
#: How many characters after a mark are looked for in the text before, to find where the span
#: it replaced ended; and how far past the difference they are looked for.
_RESUME = 32
_LONGEST_SPAN = 1 << 16
#: Characters compared at once at first while walking what both texts share (then doubled).
_FIRST_RUN = 256
_LONGEST_RUN = 1 << 16
_SIGMA = "\u03a3"  # the one letter whose lowercase depends on the letters around it


def replaced_spans(before: str, after: str) -> list[Replaced] | None:
    """The spans of `before` that `after` replaced, each with what replaced it: one or more
    marks (`[REDACTED:<kind>]`), in order. None when `after` is not `before` with spans replaced
    by marks, as far as a walk from start to end finds."""
    spans = _from_marks(before, after)
    return spans if spans is not None else _walked(before, after)


def _from_marks(before: str, after: str) -> list[Replaced] | None:
    """`replaced_spans` when each span starts where its mark does: from mark to mark of `after`,
    each stretch between compared once with its place in `before` (some microseconds for 10
    kB); None when one differs."""
    spans: list[Replaced] = []
    old = new = 0  # where the stretch both share starts, in each
    at = after.find(_MARK)
    while at != -1:
        end = after.find("]", at) + 1
        if end == 0:
            return None
        old_at = old + (at - new)
        if before[old_at : old_at + end - at] == after[at:end]:  # a mark `before` held too
            at = after.find(_MARK, end)
            continue
        if before[old:old_at] != after[new:at]:
            return None
        while after.startswith(_MARK, end):  # the marks right after it
            end = after.find("]", end) + 1
            if end == 0:
                return None
        old_end = _resumed(before, old_at, after, end)
        if old_end == -1:
            return None
        spans.append((old_at, old_end, at, end))
        old, new = old_end, end
        at = after.find(_MARK, end)
    return spans if before[old:] == after[new:] else None


def _resumed(before: str, old: int, after: str, end: int) -> int:
    """Where in `before`, from `old` on, the span replaced by marks ending at `end` in `after`
    ended: where what follows them is found (the end of `before` when nothing does); -1 when
    not found near."""
    if end == len(after):
        return len(before)
    mark = after.find(_MARK, end, end + _RESUME + len(_MARK))  # a mark next: up to it
    following = after[end : end + _RESUME if mark == -1 else min(mark, end + _RESUME)]
    return before.find(following, old, old + _LONGEST_SPAN + len(following))


def _walked(before: str, after: str) -> list[Replaced] | None:
    """`replaced_spans` found by walking what both texts share up to each difference, and
    looking for the mark there."""
    spans: list[Replaced] = []
    old, new = 0, 0
    old_size, new_size = len(before), len(after)
    while True:
        shared = _shared(before, old, after, new)
        old, new = old + shared, new + shared
        if old == old_size and new == new_size:
            return spans
        if new == new_size:
            return None  # text removed with no mark
        # the mark that holds the first difference, and the marks right after it
        start = after.rfind(_MARK, max(0, new - _MARK_REACH, new - shared), new + len(_MARK))
        end = after.find("]", start) + 1 if start != -1 else 0
        if end <= new:
            return None
        while after.startswith(_MARK, end):
            end = after.find("]", end) + 1
            if end == 0:
                return None
        old_start = old - (new - start)
        old_end = _resumed(before, old, after, end)
        if old_end == -1:
            return None
        spans.append((old_start, old_end, start, end))
        old, new = old_end, end


def _shared(before: str, old: int, after: str, new: int) -> int:
    """How many characters `before[old:]` and `after[new:]` share at their start: runs compared
    whole, ever longer, then the run that differs halved down to its first difference."""
    limit = min(len(before) - old, len(after) - new)
    done = 0
    run = _FIRST_RUN
    while done < limit:
        size = min(run, limit - done)
        if before[old + done : old + done + size] != after[new + done : new + done + size]:
            low, high = 0, size - 1  # the run's first `low` are shared, not its first `high + 1`
            while low < high:
                middle = (low + high + 1) // 2
                at = done + middle
                if before[old + done : old + at] == after[new + done : new + at]:
                    low = middle
                else:
                    high = middle - 1
            return done + low
        done += size
        run = min(run * 2, _LONGEST_RUN)
    return limit


def lowered_after(lowered: str, before: str, after: str) -> tuple[str, list[Replaced] | None]:
    """`after.lower()`, from `lowered` (`before.lower()`), and the spans `after` replaced, which
    are then the spans its lowercase replaced in `lowered`: the pieces in between taken from
    `lowered`, the spans lowercased. So when lowercasing goes character by character (each to
    one, and no `Σ`, whose lowercase depends on its neighbours); else lowercased whole, and
    None for the spans."""
    if len(lowered) != len(before) or _SIGMA in after:
        return after.lower(), None
    spans = replaced_spans(before, after)
    if spans is None or after.isascii():  # an ASCII text lowercases as fast as it is copied
        return after.lower(), spans
    pieces: list[str] = []
    done = 0
    for old_start, old_end, start, end in spans:
        pieces.append(lowered[done:old_start])
        pieces.append(after[start:end].lower())
        done = old_end
    pieces.append(lowered[done:])
    return "".join(pieces), spans


def kept_places(
    places: Sequence[int], size: int, spans: Sequence[Replaced], length: int
) -> tuple[int, ...]:
    """The places (in a text `length` long) of a word `size` long wholly outside the spans, each
    moved as far as the spans before it changed the text's length."""
    if len(spans) == 1:  # most often: one span, those before it kept, those after it moved
        old_start, old_end, _, end = spans[0]
        before = bisect_right(places, old_start - size)
        after = bisect_left(places, old_end, before)
        shift = end - old_end
        if after == len(places):
            return tuple(places[:before])
        if not shift:
            return (*places[:before], *places[after:])
        return (*places[:before], *[at + shift for at in places[after:]])
    if len(places) * 4 < len(spans):  # few places among many spans: each looked up
        return _kept_among(places, size, spans)
    kept: list[int] = []
    done = shift = 0
    for old_start, old_end, _, end in (*spans, (length, length, length, length)):
        low = bisect_left(places, done)
        high = bisect_right(places, old_start - size)
        if low < high:
            kept.extend(places[low:high] if not shift else [at + shift for at in places[low:high]])
        done = old_end
        shift = end - old_end
    return tuple(kept)


def _kept_among(places: Sequence[int], size: int, spans: Sequence[Replaced]) -> tuple[int, ...]:
    """`kept_places`, each place looked up among the spans (by where they end)."""
    ends = [span[1] for span in spans]
    kept = []
    for at in places:
        index = bisect_right(ends, at)  # the first span ending after the place
        if index == len(spans) or at + size <= spans[index][0]:
            kept.append(at if not index else at + spans[index - 1][3] - spans[index - 1][1])
    return tuple(kept)


#: Spans past which a word is looked for in the whole text rather than around each.
_MOST_SPANS = 16


def few(spans: Sequence[Replaced]) -> bool:
    """Whether a word is looked for around each of the spans rather than in the whole text."""
    return len(spans) <= _MOST_SPANS


def moved_places(
    places: Sequence[int], word: str, spans: Sequence[Replaced], length: int, lowered: str
) -> tuple[int, ...]:
    """Where `word` starts in `lowered`, made from a text `length` long where it starts at
    `places` by replacing `spans`: those places wholly outside the spans, moved, and those
    reaching into a span, found there."""
    size = len(word)
    if not few(spans):  # the whole text searched is quicker than so many stretches
        starts = []
        at = lowered.find(word)
        while at != -1:
            starts.append(at)
            at = lowered.find(word, at + 1)
        return tuple(starts)
    moved = kept_places(places, size, spans, length) if places else ()
    last = -1
    between: list[int] = []
    for _, _, start, end in spans:
        stop = min(len(lowered), end + size - 1)  # a word ending in the span or reaching out
        at = lowered.find(word, max(0, start - size + 1, last + 1), stop)
        while at != -1:
            between.append(at)
            last = at
            at = lowered.find(word, at + 1, stop)
    return tuple(sorted((*moved, *between))) if between else moved


class MovedPlaces(dict[str, tuple[int, ...]]):
    """Where each word starts in `lowered`, a text made from one whose words' places `before`
    tells by replacing `spans`: a word's places are worked out when first asked for (`get`),
    those wholly outside the spans moved, those reaching into one found there (`scanned`: the
    words an automaton looked for around the spans, `found` where it found them; any other word
    is looked for around each span); a word `before` does not tell of is not known here either
    (None). Those worked out are its items, so a plain `dict.get` answers for them, at the
    speed of a dict; the shapes ask for a few words after each change, not for all."""

    def __init__(
        self,
        before: Mapping[str, tuple[int, ...]],
        spans: Sequence[Replaced],
        length: int,
        lowered: str,
        scanned: Mapping[str, object] | None = None,
        found: Mapping[str, list[int]] | None = None,
        maybe: frozenset[str] | None = None,
    ) -> None:
        super().__init__()
        self._before, self._spans, self._length, self._lowered = before, spans, length, lowered
        self.scanned, self._found = scanned, found
        #: With `scanned`: the only words of `scanned` that may start somewhere here (those
        #: `before` may hold, and those found around the spans); `before` knows every word of
        #: `scanned`, so each of the others is known absent here without asking it (None: ask).
        self.maybe = maybe

    def get(self, word: str, default: tuple[int, ...] | None = None) -> tuple[int, ...] | None:  # type: ignore[override]
        found = dict.get(self, word)
        if found is not None:
            return found
        maybe, scanned = self.maybe, self.scanned
        if maybe is not None and scanned is not None and word not in maybe and word in scanned:
            self[word] = ()
            return ()
        places = self._before.get(word)
        if places is None:
            return default
        if self.scanned is not None and self._found is not None and word in self.scanned:
            moved = kept_places(places, len(word), self._spans, self._length) if places else ()
            between = self._found.get(word)
            if between:
                moved = tuple(sorted((*moved, *between))) if moved else tuple(between)
        else:
            moved = moved_places(places, word, self._spans, self._length, self._lowered)
        self[word] = moved
        return moved
