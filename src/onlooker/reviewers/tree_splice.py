"""The state of a git work tree's watched files: the index records with the work tree's changes
spliced in (specs/engine.md). Each watched file counts by its content's object id: the index's for
a file git finds unchanged, its own (hashed here as `git hash-object --no-filters` would) for a
modified or untracked one; the files of repositories within (which git lists as one folder) are
walked.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import stat
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from .file_walk import watched_below
from .git_index import IndexListing

Marks = tuple[list[bytes], list[int]]
"""The paths of some records of a listing, and where those records start."""

HASHED_SIZE = 1 << 20
"""A modified or untracked file larger than this counts by its mtime and size, not its content."""
SEARCHED_SHARE = 64
"""Paths are each searched for among a listing's records while they number less than the records
over this; more are looked up in a set of all the records' paths."""
MARKED_BYTES = 16_384
"""A listing's records are marked about this many bytes apart, where searches for a path start."""
HASHED_FILES = 2_000
"""With more modified and untracked files than this (a tree not yet added to git), they all count
by their mtime and size: reading them all would cost more than the walk did."""


def listed_among(listing: IndexListing, paths: list[bytes]) -> list[bytes]:
    """The `paths` a record of the listing is for, in their order."""
    entries = listing.records
    if len(paths) * SEARCHED_SHARE > listing.count:  # many: one set costs less
        listed = {record_path(record) for record in records(entries)}
        return [path for path in paths if path in listed]
    marks = sampled(listing)
    return [path for path in paths if _holds(entries, path, marks)]


def _holds(entries: bytes, path: bytes, marks: Marks | None = None) -> bool:
    """Whether a record of `entries` (sorted by path) is for `path`."""
    start = offset(entries, path, marks=marks)
    if start >= len(entries):
        return False
    end = entries.index(b"\0", start)
    return entries[entries.index(b"\t", start, end) + 1 : end] == path


def sampled(listing: IndexListing) -> Marks:
    """Where the records about every `MARKED_BYTES` of a listing start, and their paths (worked
    out once a listing): a search starts between the two marks around its path."""
    if listing.marks is None:
        entries = listing.records
        ends = range(MARKED_BYTES, len(entries), MARKED_BYTES)
        starts = sorted({0, *(entries.rfind(b"\0", 0, end) + 1 for end in ends)} - {len(entries)})
        paths = []
        for start in starts:
            end = entries.find(b"\0", start)
            paths.append(entries[entries.find(b"\t", start, end) + 1 : end])
        listing.marks = (paths, starts)
    return listing.marks


def records(output: bytes) -> list[bytes]:
    records = output.split(b"\0")
    records.pop()  # after the last NUL
    return records


def record_path(record: bytes) -> bytes:
    return record.partition(b"\t")[2]


def spliced_state(
    root: Path,
    listing: IndexListing,
    deleted: set[bytes],
    modified: set[bytes],
    added: list[str],
    skipped: list[str],
    patterns: Sequence[str],
) -> str:
    """MD5 of the index's records with deleted files left out, modified and untracked files at
    their content, and the files of repositories within (which git lists as one folder) walked:
    the bytes `git ls-files` would print once all of them were added. The same records spliced
    into the same listing as at the last check give the state found then."""
    if skipped:
        added = list(dict.fromkeys([*added, *_walk_within(root, skipped, patterns)]))
    gone = sorted(deleted | modified)
    record = partial(_record, root, len(modified) + len(added) > HASHED_FILES)
    new = sorted(filter(None, map(record, [*map(os.fsdecode, modified), *added])), key=record_path)
    found = _fingerprint(gone, new)
    last = listing.last_state
    if last is not None and last[0] == found:
        return last[1]
    entries = listing.records
    if (len(gone) + len(new)) * 64 > listing.count:  # many: one sort is cheaper
        kept = set(gone)
        kept_records = (r for r in records(entries) if record_path(r) not in kept)
        spliced = sorted([*kept_records, *new], key=record_path)
        state = hashlib.md5(b"".join(r + b"\0" for r in spliced), usedforsecurity=False)
        digest = state.hexdigest()
    else:
        digest = _spliced(entries, gone, new, sampled(listing))
    listing.last_state = (found, digest)
    return digest


def _fingerprint(gone: list[bytes], new: list[bytes]) -> str:
    """What is spliced into a listing, in 32 hex digits (kept with it, also in its file)."""
    digest = hashlib.sha256(b"%d\0" % len(gone), usedforsecurity=False)
    for part in (*gone, *new):
        digest.update(part + b"\0")
    return digest.hexdigest()[:32]


def _spliced(entries: bytes, gone: list[bytes], new: list[bytes], marks: Marks) -> str:
    """MD5 of `entries` without the records of the `gone` paths and with the `new` records at
    their places, fed in slices: the few changes cost searches, not a pass over every record."""
    edits: list[tuple[int, int, bytes, int | bytes]] = []
    for path in gone:
        start = offset(entries, path, marks=marks)
        edits.append((start, 1, path, offset(entries, path, after=True, lo=start, marks=marks)))
    for r in new:
        path = record_path(r)
        edits.append((offset(entries, path, marks=marks), 0, path, r + b"\0"))
    edits.sort(key=lambda edit: edit[:3])
    digest = hashlib.md5(usedforsecurity=False)
    view = memoryview(entries)
    done = 0
    for at, _, _, change in edits:
        digest.update(view[done:at])
        done = at
        if isinstance(change, bytes):
            digest.update(change)
        else:
            done = change
    digest.update(view[done:])
    return digest.hexdigest()


def offset(
    entries: bytes, path: bytes, *, after: bool = False, lo: int = 0, marks: Marks | None = None
) -> int:
    """Where the first record whose path sorts after `path` (or is it, unless `after`) starts in
    `entries` (records sorted by path, each ended by NUL): a binary search over the bytes, between
    the `marks` around `path` when given (`sampled`)."""
    hi = len(entries)
    if marks is not None and marks[1]:
        paths, starts = marks
        at = (bisect.bisect_right if after else bisect.bisect_left)(paths, path)
        lo = max(lo, starts[at - 1] if at else 0)
        hi = starts[at] if at < len(starts) else hi
    while lo < hi:
        mid = (lo + hi) // 2
        start = entries.rfind(b"\0", lo, mid) + 1 or lo
        end = entries.index(b"\0", start)
        found = entries[entries.index(b"\t", start, end) + 1 : end]
        if found < path or (after and found == path):
            lo = end + 1
        else:
            hi = start
    return lo


def _record(root: Path, by_stat: bool, path: str) -> bytes | None:
    """The index record `git add` would make for the file at `path` (None: it is gone, or it is a
    folder: a repository within, which the walk covers)."""
    full = root / path
    try:
        info = os.lstat(full)
        if stat.S_ISLNK(info.st_mode):
            data = os.fsencode(os.readlink(full))
            return os.fsencode(f"H 120000 {_blob_id(data)} 0\t{path}")
        if not stat.S_ISREG(info.st_mode):
            return None
        mode = "100755" if info.st_mode & stat.S_IXUSR else "100644"
        if by_stat or info.st_size > HASHED_SIZE:
            oid = f"mtime:{info.st_mtime_ns}:size:{info.st_size}"
        else:
            oid = _blob_id(full.read_bytes())
        return os.fsencode(f"H {mode} {oid} 0\t{path}")
    except OSError:
        return None


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _walk_within(root: Path, folders: list[str], patterns: Sequence[str]) -> list[str]:
    """The matched files in repositories within, which git lists as one untracked folder."""
    return [f.path for folder in folders for f in watched_below(root, folder, patterns)]
