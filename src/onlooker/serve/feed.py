"""The live feed: journals tailed by one thread, new lines turned into numbered items, kept in a
ring for reconnects, and handed to every open page's event stream (specs/serve.md).

Why polling: the hooks append to `journals/<project>/<session>.jsonl` and nothing else is told.
One `scandir` of each project folder per tick (a `stat` per journal, no file opened unless it
grew) costs about a millisecond per thousand journals, needs no native watcher, and works the same
on every platform. Only bytes past each journal's last offset are read, up to the last newline.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import threading
from collections import deque
from pathlib import Path
from typing import Any

from ..store import Store, StoreError
from ..store.home import JOURNALS
from .items import item_of, run_item

log = logging.getLogger("onlooker.serve")

TICK = 0.1
"""Seconds between two looks at the journals: new events reach a page well within a second."""
RING = 20_000
"""Items kept for reconnecting pages (`Last-Event-ID`); older gaps are refilled by a reload."""
READ_LIMIT = 4 << 20
"""Bytes read from one journal in one tick (the rest waits for the next)."""


class JournalTail:
    """Where each journal was last read up to; `poll` returns what was appended since."""

    def __init__(self, home: Path) -> None:
        self.root = home / JOURNALS
        self.offsets: dict[str, int] = {}

    def prime(self) -> None:
        """Start from the journals' current ends: what is there already is read by the pages."""
        for path, size in self._sizes():
            self.offsets[path] = size

    def poll(self) -> list[tuple[str, str, bytes]]:
        """(project, session, line) for each complete line appended since the last poll."""
        found: list[tuple[str, str, bytes]] = []
        for path, size in self._sizes():
            start = self.offsets.get(path, 0)
            if size == start:
                continue
            if size < start:  # replaced (never done by onlooker): read it again
                start = 0
            with open(path, "rb") as file:
                file.seek(start)
                data = file.read(min(size - start, READ_LIMIT))
            complete = data.rfind(b"\n") + 1
            self.offsets[path] = start + complete
            folder, name = os.path.split(path)
            project, session = os.path.basename(folder), name[: -len(".jsonl")]
            found += [(project, session, line) for line in data[:complete].splitlines() if line]
        return found

    def _sizes(self) -> list[tuple[str, int]]:
        sizes: list[tuple[str, int]] = []
        try:
            projects = list(os.scandir(self.root))
        except FileNotFoundError:
            return sizes
        for project in projects:
            if not project.is_dir():
                continue
            try:
                with os.scandir(project.path) as entries:
                    for entry in entries:
                        if entry.name.endswith(".jsonl"):
                            sizes.append((entry.path, entry.stat().st_size))
            except FileNotFoundError:
                continue
        return sizes


class Feed:
    """Numbered items (`<boot>-<n>`) in a ring, and a way for streams to wait for new ones."""

    def __init__(self, home: Path, boot: str, *, tick: float = TICK) -> None:
        self.home = home
        self.tail = JournalTail(home)
        self.last_run = 0
        """The newest reviewer run already published (runs live in the index, not journals)."""
        self.boot = boot
        self.tick = tick
        self.ring: deque[tuple[int, dict[str, Any]]] = deque(maxlen=RING)
        self.last = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed: asyncio.Event | None = None
        """Set when items arrive, then replaced by a fresh one (all on the event loop's thread)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop, self._changed = loop, asyncio.Event()
        self.tail.prime()
        self._thread = threading.Thread(target=self._run, name="onlooker-serve-feed", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        with Store(self.home) as store:  # this thread's own connection
            self.last_run = store.runs.newest()
            while not self._stop.wait(self.tick):
                self._look(store)

    def _look(self, store: Store) -> None:
        try:
            lines = self.tail.poll()
            runs = store.runs.after(self.last_run)
        except (OSError, StoreError) as exc:  # a journal removed under us: look again next tick
            log.warning("reading journals: %s", exc)
            return
        items = [i for p, s, line in lines if (i := item_of(line, p, s)) is not None]
        if runs:
            self.last_run = runs[-1]["n"]
            items += [run_item(r) for r in runs]
        if items and self._loop is not None:
            self._loop.call_soon_threadsafe(self._publish, items)

    def _publish(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            self.last += 1
            self.ring.append((self.last, item))
        assert self._changed is not None
        woken, self._changed = self._changed, asyncio.Event()
        woken.set()

    def since(self, last_id: str | None) -> tuple[list[tuple[int, dict[str, Any]]], bool]:
        """Items after `last_id` and whether the page must reload instead (an id of another
        server, or older than the ring keeps)."""
        if not last_id:
            return [], False
        boot, _, number = last_id.rpartition("-")
        if boot != self.boot or not number.isdigit():
            return [], True
        after = int(number)
        oldest = self.ring[0][0] if self.ring else self.last + 1
        if after < oldest - 1:
            return [], True
        return self._after(after), False

    async def wait(self, after: int, timeout: float) -> list[tuple[int, dict[str, Any]]]:
        """Items numbered after `after`, waiting up to `timeout` seconds for some."""
        assert self._changed is not None
        changed = self._changed  # taken before looking: an item published after it sets it
        if self.last <= after:
            try:
                await asyncio.wait_for(changed.wait(), timeout)
            except TimeoutError:
                return []
        return self._after(after)

    def event_id(self, number: int) -> str:
        return f"{self.boot}-{number}"

    def _after(self, after: int) -> list[tuple[int, dict[str, Any]]]:
        """The ring's items numbered after `after` (numbers are consecutive: no scan)."""
        if not self.ring or after >= self.last:
            return []
        skip = max(after - self.ring[0][0] + 1, 0)
        return list(itertools.islice(self.ring, skip, None))
