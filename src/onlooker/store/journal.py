"""The journal: one append-only JSONL file per session, the truth the index is rebuilt from.

Each append is one `os.write` on an O_APPEND descriptor under an exclusive `flock`; a torn or
garbage line (a writer killed mid-write) is skipped with a warning when read, never fatal.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..core.records import Record, decode_record
from ..errors import StoreError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: O_APPEND alone keeps appends whole
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("onlooker.store")

_PREFIX = b'{"kind":"'
_APPEND_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True, slots=True)
class Entry:
    """One decoded journal line."""

    record: Record
    line: int
    """1-based line number in the journal (counted from where the read began)."""
    offset: int
    """Byte offset of the line."""


@dataclass(frozen=True, slots=True)
class SkippedLine:
    """A line that could not be decoded: torn by a killed writer, or garbage."""

    path: Path
    line: int
    offset: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: skipped ({self.reason})"


@dataclass(frozen=True, slots=True)
class JournalRead:
    """What a read found: decoded entries, skipped lines, the offset after the last whole line."""

    entries: tuple[Entry, ...]
    skipped: tuple[SkippedLine, ...]
    end: int

    @property
    def records(self) -> list[Record]:
        return [entry.record for entry in self.entries]


@dataclass(frozen=True, slots=True)
class Journal:
    """One session's journal file (or a project's manual journal)."""

    path: Path
    key: str
    """The path relative to the data home: how the index names this journal."""

    def size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def append(self, records: Iterable[Record]) -> tuple[int, int]:
        """Append records, one line each, in a single write; return the (start, end) offsets."""
        try:
            data = b"".join(r.to_json().encode() + b"\n" for r in records)
        except UnicodeEncodeError as exc:  # a lone surrogate that no edge normalised
            raise StoreError(f"{self.path}: a record cannot be journaled ({exc.reason})") from exc
        if not data:
            size = self.size()
            return size, size
        try:
            try:
                fd = os.open(self.path, _APPEND_FLAGS, 0o600)
            except FileNotFoundError:  # a session's first line: its folder is made first
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, _APPEND_FLAGS, 0o600)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open the journal ({exc.strerror})") from exc
        try:
            with _locked(fd):
                start = os.fstat(fd).st_size
                # A writer that died mid-line left a fragment: end it, or it swallows our line.
                torn = start > 0 and _byte_at(fd, start - 1) != b"\n"
                block = b"\n" + data if torn else data
                _write_all(fd, block)
                return start + torn, start + len(block)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot append to the journal ({exc.strerror})") from exc
        finally:
            os.close(fd)

    def read(self, offset: int = 0, kinds: frozenset[str] | None = None) -> JournalRead:
        """Decode the complete lines from `offset` on; with `kinds`, decode only those kinds."""
        try:
            with open(self.path, "rb") as file:
                file.seek(offset)
                data = file.read()
        except FileNotFoundError:
            return JournalRead((), (), offset)
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot read the journal ({exc.strerror})") from exc
        complete = data.rfind(b"\n") + 1
        entries: list[Entry] = []
        skipped: list[SkippedLine] = []
        position = offset
        for number, line in enumerate(data[:complete].split(b"\n")[:-1], start=1):
            here = position
            position += len(line) + 1
            if not line.strip():
                continue
            if kinds is not None:
                kind = _kind_of(line)
                if kind is not None and kind not in kinds:
                    continue
            try:
                entries.append(Entry(decode_record(json.loads(line)), number, here))
            except Exception as exc:  # any undecodable line is skipped, never fatal
                miss = SkippedLine(self.path, number, here, str(exc)[:200])
                log.warning("%s", miss)
                skipped.append(miss)
        return JournalRead(tuple(entries), tuple(skipped), offset + complete)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.read().records)


def _kind_of(line: bytes) -> str | None:
    if not line.startswith(_PREFIX):
        return None
    end = line.find(b'"', len(_PREFIX))
    return line[len(_PREFIX) : end].decode("utf-8", "replace") if end > 0 else None


def _byte_at(fd: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, 1, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # pragma: no cover - Windows; appends still go to the end
    return os.read(fd, 1)  # pragma: no cover


def _write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)
    while written < len(data):  # only on a full disk or a signal; still under the lock
        written += os.write(fd, data[written:])


@contextmanager
def _locked(fd: int) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
