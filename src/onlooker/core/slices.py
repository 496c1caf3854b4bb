"""Typed slices of session state and the operations reducers return.

A reducer is a pure function `(view, event) -> Append | Replace | Request | tuple | None`; the
session applies what it returns. Slices keep a bounded window so state loads in O(1).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Slice(Generic[T]):
    """The retained items of one type, oldest first, plus how many were ever appended."""

    __slots__ = ("_items", "total")

    def __init__(self, window: int, items: tuple[T, ...] = (), total: int = 0) -> None:
        self._items: deque[T] = deque(items, maxlen=window)
        self.total = max(total, len(self._items))

    def all(self) -> tuple[T, ...]:
        """Every retained item, oldest first."""
        return tuple(self._items)

    def latest(self) -> T | None:
        """The newest item, or None."""
        return self._items[-1] if self._items else None

    def where(self, predicate: Callable[[T], bool]) -> tuple[T, ...]:
        """Retained items for which `predicate` is true, oldest first."""
        return tuple(item for item in self._items if predicate(item))

    def recent(self, n: int) -> tuple[T, ...]:
        """The newest `n` items, oldest first."""
        if n <= 0:
            return ()
        items = self._items
        if n >= len(items):
            return tuple(items)
        return tuple(islice(items, len(items) - n, None))

    def newest_first(self) -> Iterator[T]:
        return reversed(self._items)

    @property
    def window(self) -> int:
        return self._items.maxlen or 0

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items)

    def append(self, item: T) -> None:
        self._items.append(item)
        self.total += 1

    def seed(self, item: T) -> None:
        """Replace the slice's content with one item (what a reducer's `Replace` does)."""
        self._items.clear()
        self._items.append(item)
        self.total += 1


@dataclass(frozen=True, slots=True)
class Append(Generic[T]):
    """Add `item` to the slice of its type."""

    item: T


@dataclass(frozen=True, slots=True)
class Replace(Generic[T]):
    """Make `item` the only current value of the slice of its type."""

    item: T


@dataclass(frozen=True, slots=True)
class Request:
    """Ask for observers triggered by the marker `name` to run after this event."""

    name: str


Op = Append[Any] | Replace[Any] | Request
Reduced = Op | tuple[Op, ...] | None
Reducer = Callable[[Any, Any], Reduced]
