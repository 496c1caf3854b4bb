"""The index listing kept in a file of the data home, so a new process reads it instead of asking
git (specs/engine.md).

A process keeps its listings in memory (`git_index.py`); a new one (a CLI run, a service just
started) would list the whole index again, which costs as much as `git status` itself. So each
listing read from git is also written to `run/git-listings/` in the data home, named by the work
tree and the globs' pathspecs, with the index checksum it was read under, its MD5, its count of
records and the paths marked assume-unchanged and those of submodules. It is read only under the
same checksum (git rewrites the index whole on any change), whole (its length is checked), and
written by replacing the file at once, so processes that read and write it at the same time each
see one whole listing. The files of the `KEPT_FILES` listings used last are kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from ..store.home import data_home
from .git_index import IndexListing
from .git_verdicts import gitlinks

KEPT_FILES = 16
"""Files kept (those written or read last): a listing's, and the last state found with it."""
FOLDER = "git-listings"
_MAGIC = b"onlooker git listing 2\n"
_HEADER_LINES = 7
"""The magic line; the index checksum, MD5 (`-`: not worked out), count of records; the lengths of
the assume-unchanged paths, the submodules' paths and the records, which follow in that order."""
_STATE = ".state"
"""The suffix of the file beside a listing's that keeps the last check's state."""


def listing_path(root: Path, specs: Sequence[str]) -> Path:
    """The file that keeps the listing of `root`'s index for the pathspecs `specs`."""
    name = "\0".join([str(root), *specs]).encode("utf-8", "surrogateescape")
    return data_home() / "run" / FOLDER / hashlib.sha256(name).hexdigest()[:32]


def read_listing(
    root: Path, specs: Sequence[str], key: bytes, git_dir: Path | None
) -> IndexListing | None:
    """The listing kept under the index checksum `key`; None when none is (or it cannot be read
    whole)."""
    path = listing_path(root, specs)
    try:
        with open(path, "rb") as file:
            header = [file.readline() for _ in range(_HEADER_LINES)]
            if header[0] != _MAGIC or header[1] != key.hex().encode() + b"\n":
                return None
            count, *lengths = map(int, header[3:])
            assumed, gitlinks = (tuple(file.read(n).split(b"\0")[:-1]) for n in lengths[:2])
            records = file.read()
    except (OSError, ValueError):
        return None
    if len(records) != lengths[2]:
        return None
    digest = header[2].strip().decode("ascii", "replace") if header[2] != b"-\n" else None
    with contextlib.suppress(OSError):
        os.utime(path)  # used last: kept longest
    listing = IndexListing.restored(records, (assumed, gitlinks), (digest, count), git_dir)
    listing.file = (path, key)
    try:
        state = path.with_name(path.name + _STATE).read_bytes().split(b"\n")
    except OSError:
        return listing
    if len(state) == 4 and state[0] == key.hex().encode():
        listing.last_state = (
            state[1].decode("ascii", "replace"),
            state[2].decode("ascii", "replace"),
        )
    return listing


def write_state(listing: IndexListing) -> None:
    """Keep the state the last check found with `listing`'s file (if it has one), so the next
    process that finds the same changes need not splice them in again."""
    if listing.file is None or listing.last_state is None:
        return
    path, key = listing.file
    state = path.with_name(path.name + _STATE)
    taking = state.with_name(f"{state.name}.{os.getpid()}.taking")
    fingerprint, digest = listing.last_state
    try:
        taking.write_bytes(
            b"%s\n%s\n%s\n" % (key.hex().encode(), fingerprint.encode(), digest.encode())
        )
        os.replace(taking, state)
    except OSError:
        taking.unlink(missing_ok=True)


def write_listing(root: Path, specs: Sequence[str], key: bytes, listing: IndexListing) -> None:
    """Keep `listing` (read under the index checksum `key`) for the next process; nothing when the
    data home cannot be written."""
    path = listing_path(root, specs)
    assumed = b"".join(entry + b"\0" for entry in listing.assumed)
    submodules = b"".join(entry + b"\0" for entry in gitlinks(listing))
    header = b"\n".join(
        [
            key.hex().encode(),
            (listing.digest_if_known or "-").encode(),  # worked out by the first that needs it
            b"%d" % listing.count,
            b"%d" % len(assumed),
            b"%d" % len(submodules),
            b"%d" % len(listing.records),
        ]
    )
    taking = path.with_name(f"{path.name}.{os.getpid()}.taking")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(taking, "wb") as file:
            file.write(_MAGIC + header + b"\n" + assumed + submodules)
            file.write(listing.records)
        os.replace(taking, path)
    except OSError:
        taking.unlink(missing_ok=True)
        return
    listing.file = (path, key)
    _keep_last(path.parent)


def _keep_last(folder: Path) -> None:
    """Remove all but the `KEPT_FILES` listing files used last (and the unfinished ones of
    processes gone long ago)."""
    try:
        found = [(entry.stat().st_mtime_ns, Path(entry.path)) for entry in os.scandir(folder)]
    except OSError:
        return
    for _, path in sorted(found, reverse=True)[KEPT_FILES:]:
        path.unlink(missing_ok=True)
