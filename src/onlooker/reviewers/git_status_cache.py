"""`git status` over a private copy of the index, where git keeps its untracked cache
(specs/engine.md).

One `git status` checks every entry's stat on several threads and finds the untracked files; with
the untracked cache (`core.untrackedCache`), a folder whose stat has not changed since the last
check is not read again. The cache lives in the index, which onlooker never writes: so `git status`
runs over a copy of it (`GIT_INDEX_FILE`) in this process's folder of the data home
(`run/git-index-<pid>/`, removed when the process ends and, left by a killed one, by the next),
taken again whenever the index file's checksum changes, with the index's times (git reads its
entries as racy as in the index). After its first `git status` the copy is left as the seed of
the next processes' copies under the same checksum (`run/git-index-seeds/`, a hard link: git writes
an index by renaming a new file over it), so a new process starts with git's untracked cache.
A file git judged unchanged has its stat refreshed in the copy under the attributes and config of
that moment: a copy is taken afresh when those change (`git_verdicts.status_sources`).
Its verdicts on the entries it names are read as `git ls-files --modified --deleted` would give
them (both compare with `ie_modified`); the folders it lists whole are listed file by file by `git
ls-files --others`. Where they could differ, the caller asks git as before: when
`.git/info/exclude` holds patterns (`git status` reads it, `git ls-files` as run here does not), or
a listed path is in a `.hg` or `.svn` folder (which the listing leaves out).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from ..store.home import data_home
from ..text.ignore import IGNORE_FILE
from .git_index import Command, run_together

STATUS = ["-c", "core.untrackedCache=true", "-c", "core.fsmonitor=false"]
STATUS += ["-c", "core.splitIndex=false"]  # the copy is written whole, nothing in the repository
STATUS += ["-c", f"core.excludesFile={os.devnull}", "-c", "status.showUntrackedFiles=normal"]
STATUS += ["status", "--porcelain=v2", "-z", "--untracked-files=normal", "--no-renames"]
STATUS += ["--ignore-submodules=all"]  # submodules are judged by ls-files (git_verdicts.py)
_SKIPPED = ("/.hg/", "/.svn/")
_FOLDER_PREFIX = "git-index-"
SEEDS = "git-index-seeds"
"""The data home's `run/` folder where copies are left for the next processes."""
_NUMBERS = itertools.count()
"""Numbers of the copies a process takes (several sets of copies never share one)."""
KEPT_SEEDS = 8
"""Seeds kept (those left last)."""
LEFT_NS = 60_000_000_000
"""A seed still being taken after this long (ns) was left by a process that died meanwhile."""


def _copies_folder(run: Path) -> Path:
    """This process's folder for index copies, under the data home's `run/`; the folders of
    processes that are gone are removed first."""
    for folder in run.glob(f"{_FOLDER_PREFIX}*"):
        pid = folder.name.removeprefix(_FOLDER_PREFIX)
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
    folder = run / f"{_FOLDER_PREFIX}{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _remove_own(folder: Path, pid: int) -> None:
    if os.getpid() == pid:
        shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


class PrivateIndexes:
    """This process's copies of work trees' indexes: each with the checksum it was taken under,
    whether it is shared as the seed of the next processes' copies yet, and the fingerprint of
    what git judged its entries under (`git_verdicts.status_sources`; None: not yet known)."""

    def __init__(self) -> None:
        self._folder: Path | None = None
        self._pid = os.getpid()
        self._copies: dict[str, tuple[bytes, Path, bool, str | None]] = {}
        self._lock = threading.Lock()

    def copy(self, root: Path, index: Path, key: bytes, *, fresh: bool = False) -> Path | None:
        """The private copy of `index` (taken now unless it was under `key`: from the seed
        another process left under `key`, else, or when `fresh`, from the index); None when it
        cannot be taken."""
        with self._lock:
            if self._pid != os.getpid():  # a forked child takes copies of its own
                self._folder, self._pid, self._copies = None, os.getpid(), {}
            run = data_home() / "run"
            if self._folder is not None and self._folder.parent != run:  # another data home
                self._folder, self._copies = None, {}
            kept = self._copies.get(str(root))
            if kept is not None and kept[0] == key and kept[1].exists() and not fresh:
                return kept[1]
            try:
                if self._folder is None or not self._folder.is_dir():
                    self._folder, self._copies, kept = _copies_folder(run), {}, None
                    weakref.finalize(self, _remove_own, self._folder, self._pid)
                copy = self._folder / f"index-{next(_NUMBERS)}"
                if kept is not None:
                    copy = kept[1]
                taking = copy.with_suffix(".taking")
                seed = None if fresh else _seed_of(run, root, key)
                sources = None
                try:
                    if seed is None:
                        raise FileNotFoundError
                    _link(seed, taking)
                    sources = seed.name.rpartition("-")[2]
                except FileNotFoundError:  # the times kept: git reads entries as racy as there
                    shutil.copy2(index, taking)
                os.replace(taking, copy)  # a status running over the last copy reads it whole
            except OSError:
                return None
            self._copies[str(root)] = (key, copy, False, sources)
            return copy

    def settled(self, root: Path, sources: str) -> bool:
        """Whether git judged the entries of `root`'s copy under the `sources` found now (kept as
        the copy's when none were known); when not, the copy is to be taken afresh."""
        with self._lock:
            kept = self._copies.get(str(root))
            if kept is None:
                return False
            if kept[3] is None:
                self._copies[str(root)] = (*kept[:3], sources)
                return True
            return kept[3] == sources

    def share(self, root: Path) -> None:
        """Leave the copy of `root`'s index, with the untracked cache git status keeps in it, as
        the seed of the next processes' copies (once a copy); the seeds of its older indexes and
        all but the `KEPT_SEEDS` used last are removed."""
        with self._lock:
            kept = self._copies.get(str(root))
            if kept is None or kept[2] or kept[3] is None:
                return
            key, copy, _, sources = kept
            self._copies[str(root)] = (key, copy, True, sources)
            seed = data_home() / "run" / SEEDS / f"{_root_name(root)}-{key.hex()}-{sources}"
            taking = seed.with_name(f"{seed.name}.{os.getpid()}.taking")
            try:
                seed.parent.mkdir(parents=True, exist_ok=True)
                _link(copy, taking)
                os.replace(taking, seed)
                found = [
                    (entry.stat().st_mtime_ns, entry.name) for entry in os.scandir(seed.parent)
                ]
            except OSError:
                taking.unlink(missing_ok=True)
                return
        older, now = seed.name.split("-")[0] + "-", time.time_ns()
        for at, (changed, name) in enumerate(sorted(found, reverse=True)):
            if name.endswith(".taking") and now - changed < LEFT_NS:
                continue  # another process's, being taken
            if name != seed.name and (name.startswith(older) or at >= KEPT_SEEDS):
                (seed.parent / name).unlink(missing_ok=True)


def _link(source: Path, target: Path) -> None:
    """`target` made the same file as `source` (a copy of it where links cannot be made): git
    writes an index copy by renaming a new file over it, never in place, so a seed and the copies
    taken from it stay as they were when another changes."""
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except FileNotFoundError:
        raise
    except OSError:
        shutil.copy2(source, target)


def _root_name(root: Path) -> str:
    return hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _seed_of(run: Path, root: Path, key: bytes) -> Path | None:
    """The seed of `root`'s index copies taken under the index checksum `key` (named by the
    work tree, the checksum and the fingerprint of what git judged its entries under)."""
    prefix = f"{_root_name(root)}-{key.hex()}-"
    try:
        names = [entry.name for entry in os.scandir(run / SEEDS)]
    except OSError:
        return None
    found = [name for name in names if name.startswith(prefix) and "." not in name]
    return run / SEEDS / found[0] if found else None


PRIVATE = PrivateIndexes()


def status_command(copy: Path) -> Command:
    """`git status` over the private copy (which it may write: no one else does)."""
    return (STATUS, {"GIT_INDEX_FILE": str(copy), "GIT_OPTIONAL_LOCKS": "1"})


def excludes_elsewhere(git_dir: Path | None) -> bool:
    """Whether `info/exclude` holds a pattern (or cannot be read), which `git status` would
    apply and the untracked listing does not."""
    if git_dir is None:
        return True
    folders = [git_dir]
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
        folders.append(git_dir / common)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError):
        return True
    for folder in folders:
        try:
            text = (folder / "info" / "exclude").read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError):
            return True
        lines = (line.strip() for line in text.splitlines())
        if any(line and not line.startswith("#") for line in lines):
            return True
    return False


class StatusRead(NamedTuple):
    """What a `git status --porcelain=v2 -z` output tells."""

    changed: list[bytes]
    """The entries it finds changed in the work tree."""
    untracked: list[str]
    """The untracked paths it lists, folders with a `/`."""
    judged: list[tuple[bytes, bytes]]
    """Its verdicts on the merged entries, as `git ls-files -t` tags them: `R` deleted (`D`),
    `C` modified (`M`, or `T` its type, or `A` an entry added with intent to add)."""
    unmerged: list[bytes]
    """The unmerged paths, whose entries `git ls-files` judges one by one."""


def read_status(output: bytes) -> StatusRead | None:
    """What `output` tells; None when a record is not one this reading knows."""
    read = StatusRead([], [], [], [])
    for record in output.split(b"\0")[:-1]:
        kind = record[:2]
        if kind == b"? ":
            read.untracked.append(os.fsdecode(record[2:]))
        elif kind == b"1 ":
            fields = record.split(b" ", 8)
            if len(fields) < 9:
                return None
            state = fields[1][1:2]
            if state not in (b".", b"M", b"T", b"A", b"D"):
                return None
            if state != b".":
                read.changed.append(fields[-1])
                read.judged.append((b"R" if state == b"D" else b"C", fields[-1]))
        elif kind == b"u ":
            fields = record.split(b" ", 10)
            if len(fields) < 11:
                return None
            read.changed.append(fields[-1])
            read.unmerged.append(fields[-1])
        else:
            return None
    return read


def untracked_below(
    git: str, root: Path, listed: list[str], changed: list[bytes], prefixes: Sequence[str]
) -> list[str] | None:
    """The untracked paths below the `prefixes` ('' for all), as `git ls-files --others` lists
    them: the files `git status` named, and the folders it listed whole listed again by `git
    ls-files`, as are the folders now where it found a changed entry (a file become a folder,
    whose files it does not list); None when git cannot answer or a path is in a folder the
    listing leaves out."""
    if any(part in f"/{path}" for path in listed for part in _SKIPPED):
        return None
    found = [path for path in listed if not path.endswith("/") and _below(path, prefixes)]
    asked = []
    folders = [path for path in listed if path.endswith("/")]
    folders += [f"{os.fsdecode(path)}/" for path in changed if (root / os.fsdecode(path)).is_dir()]
    for folder in folders:
        if _below(folder, prefixes):
            asked.append(folder.rstrip("/"))
        asked += [prefix for prefix in prefixes if prefix and _below(prefix + "/", [folder])]
    if asked:
        others = ["ls-files", "-z", "--others", f"--exclude-per-directory={IGNORE_FILE}", "--"]
        asked = list(dict.fromkeys(asked))
        outputs = run_together(git, root, [[*others, *(f":(literal){path}" for path in asked)]])
        if outputs is None:
            return None
        more = [os.fsdecode(path) for path in outputs[0].split(b"\0")[:-1]]
        if any(part in f"/{path}" for path in more for part in _SKIPPED):
            return None
        found += more
    return list(dict.fromkeys(found))


def _below(path: str, prefixes: Sequence[str]) -> bool:
    return any(not prefix or path.startswith(prefix.rstrip("/") + "/") for prefix in prefixes)
