"""Running git for change detection (specs/engine.md): its commands, and the index listing kept
while the index file is unchanged.

Listing the index entries the watched globs match costs a read of the whole index; the entries
change only when the index file does (git rewrites it whole and ends it with a checksum of its
content), so a long-running process (the hook service, the worker) keeps the last listings, keyed
by that checksum, and a check then costs one `git ls-files` that finds what changed in the work
tree. The listing is read again whenever the checksum differs, or cannot be read.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path

GIT_TIMEOUT = 30.0
"""Seconds git may take before the walk answers instead."""
KEPT_LISTINGS = 4
"""Index listings kept (the most recently used): one per project root and set of globs."""
_ASSUMED = re.compile(rb"(^|\0)[a-z] (?=[0-7]+ [0-9a-f]+ \d\t([^\0]*))")
_LOWER_TAG = re.compile(rb"\0[a-z] ")
"""A record whose tag `git ls-files -v` gives in lower case (an entry marked assume-unchanged):
searched for before the pattern, which costs more (a search for NUL runs at memchr's speed)."""
_TRAILER = 32
"""Bytes read at the index file's end: its checksum (SHA-1's 20 or SHA-256's 32)."""


def index_key(root: Path) -> bytes | None:
    """The checksum that ends the index file of the work tree at `root`; None when there is none
    to read (no index yet, an index written without one, a `.git` file that points nowhere)."""
    index = index_file(root)
    if index is None:
        return None
    try:
        with open(index, "rb") as file:
            file.seek(-_TRAILER, os.SEEK_END)
            trailer = file.read(_TRAILER)
    except OSError:
        return None
    if len(trailer) != _TRAILER or not trailer.strip(b"\0"):
        return None  # `index.skipHash` leaves zeros: nothing tells a rewrite
    return trailer


def index_file(root: Path) -> Path | None:
    """Where the index of the work tree at `root` is (None: `.git` points nowhere readable)."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git / "index"
    try:
        text = dot_git.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    return (root / text.removeprefix("gitdir:").strip()) / "index"  # a linked work tree


class IndexListing:
    """One `git ls-files --stage` output (records sorted by path, each ended by NUL) and what is
    worked out from it once: its MD5, its count of records, and what the last check found (git's
    verdicts on the changed entries, the state), reused when the next check finds the same."""

    __slots__ = (
        "_count",
        "_digest",
        "assumed",
        "file",
        "git_dir",
        "gitlinks",
        "last_state",
        "last_verdicts",
        "marks",
        "records",
    )

    def __init__(self, output: bytes, git_dir: Path | None = None) -> None:
        """`output`: `git ls-files -z -v --stage`, whose tags are lower case for the entries
        marked assume-unchanged; the records keep the tags `-t` gives (upper case)."""
        self.assumed: tuple[bytes, ...] = ()
        """The paths of the entries marked assume-unchanged."""
        lower = output[:1].islower() or _LOWER_TAG.search(output) is not None
        if lower and _ASSUMED.search(output):
            self.assumed = tuple(match[2] for match in _ASSUMED.finditer(output))
            output = _ASSUMED.sub(lambda match: match[0].upper(), output)
        self.records = output
        self.git_dir = git_dir
        """The repository folder the index is in."""
        self.gitlinks: tuple[bytes, ...] | None = None
        """The paths of the submodule entries, once looked for."""
        self.last_verdicts: tuple[object, list[tuple[bytes, bytes]]] | None = None
        """(what the verdicts hung on, git's verdicts on the candidates) at the last check."""
        self._digest: str | None = None
        self._count: int | None = None
        self.last_state: tuple[str, str] | None = None
        """(the fingerprint of the records spliced into this listing, the state they gave) at
        the last check."""
        self.marks: tuple[list[bytes], list[int]] | None = None
        """Where some records start, and their paths, once searched (`tree_splice.sampled`)."""
        self.file: tuple[Path, bytes] | None = None
        """The file it is kept in for the next processes, with the index checksum it is for."""

    @classmethod
    def restored(
        cls,
        records: bytes,
        marked: tuple[tuple[bytes, ...], tuple[bytes, ...]],
        worked_out: tuple[str | None, int],
        git_dir: Path | None,
    ) -> IndexListing:
        """A listing as it was kept (`git_listing_file.py`): its records, the paths marked
        assume-unchanged and those of the submodules (`marked`), its MD5 (None: not worked out
        yet) and count of records (`worked_out`), not worked out again."""
        listing = cls(b"", git_dir)
        listing.records, (listing.assumed, listing.gitlinks) = records, marked
        listing._digest, listing._count = worked_out
        return listing

    @property
    def digest_if_known(self) -> str | None:
        """The MD5 when it was worked out already (a check that found changes needs it not)."""
        return self._digest

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = hashlib.md5(self.records, usedforsecurity=False).hexdigest()
        return self._digest

    @property
    def count(self) -> int:
        if self._count is None:
            self._count = self.records.count(b"\0")
        return self._count


class IndexListings:
    """Index listings by (root, pathspecs), each with the index checksum it was read under."""

    def __init__(self, kept: int = KEPT_LISTINGS) -> None:
        self._kept = kept
        self._listings: OrderedDict[tuple[str, tuple[str, ...]], tuple[bytes, IndexListing]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def get(self, root: Path, specs: Sequence[str], key: bytes | None) -> IndexListing | None:
        """The listing read under the index checksum `key`; None when none is kept."""
        if key is None:
            return None
        name = (str(root), tuple(specs))
        with self._lock:
            kept = self._listings.get(name)
            if kept is None or kept[0] != key:
                return None
            self._listings.move_to_end(name)
            return kept[1]

    def keep(
        self, root: Path, specs: Sequence[str], key: bytes | None, listing: IndexListing
    ) -> None:
        if key is None:
            return
        name = (str(root), tuple(specs))
        with self._lock:
            self._listings[name] = (key, listing)
            self._listings.move_to_end(name)
            while len(self._listings) > self._kept:
                self._listings.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._listings.clear()


LISTINGS = IndexListings()
"""This process's kept index listings."""


Command = list[str] | tuple[list[str], Mapping[str, str]]
"""A git command's arguments, optionally with variables to set for it."""


def run_together(git: str, root: Path, commands: Sequence[Command]) -> list[bytes] | None:
    """The outputs of the git `commands`, run at once in `root`; None when one fails or outlasts
    `GIT_TIMEOUT` (git's own variables left out, so no hook's GIT_DIR points it elsewhere)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    options = {"cwd": root, "stdin": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    running: list[subprocess.Popen[bytes]] = []
    try:
        for command in commands:
            arguments, variables = command if isinstance(command, tuple) else (command, {})
            argv = [git, "-c", "core.quotePath=false", *arguments]
            running.append(
                subprocess.Popen(argv, stdout=subprocess.PIPE, env={**env, **variables}, **options)  # type: ignore[call-overload]
            )
        outputs = [process.communicate(timeout=GIT_TIMEOUT)[0] for process in running]
    except (OSError, subprocess.TimeoutExpired):
        for process in running:
            process.kill()
            process.wait()
        return None
    if any(process.returncode != 0 for process in running):
        return None
    return outputs
