"""The watched files' state in a git work tree, from what git already knows (specs/engine.md).

Git lists the index entries the patterns match (mode, object id, path), and, in one `git
ls-files` (two at once when a core is free), which entries it finds modified or deleted (it
compares its stat cache, and the content where the stat cannot tell) and the untracked files the
`.gitignore` files do not ignore. The index listing is kept while the index file is unchanged
(`git_index.py`), so a repeated check costs that one `git ls-files`. Each watched file counts by
its content's object id: the index's for a file git finds unchanged, its own (hashed here as `git
hash-object --no-filters` would) for a modified or untracked one. So the state is that of the tree
`git add -A` would record for the matched paths: it changes when a matched file is added,
deleted, renamed or its content changes, and not when a file is only touched, staged or committed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from ..text.ignore import IGNORE_FILE
from .file_walk import fixed_prefixes, path_matcher, watched_below
from .git_index import LISTINGS, a_core_is_free, index_key, run_together

HASHED_SIZE = 1 << 20
"""A modified or untracked file larger than this counts by its mtime and size, not its content."""
HASHED_FILES = 2_000
"""With more modified and untracked files than this (a tree not yet added to git), they all count
by their mtime and size: reading them all would cost more than the walk did."""
SKIPPED_PARTS = (".hg", ".svn")
"""Other tools' folders the file walk skips too (git never lists `.git`)."""
SEARCHED_SHARE = 64
"""Changed paths are each searched for among the index records while they number less than the
records over this; more are looked up in a set of all the records' paths."""
_SUBMODULE_PATH = re.compile(r"^\s*path\s*=(.*)$", re.MULTILINE)
_LEFT_OUT = tuple(f":(exclude,glob)**/{part}/**" for part in SKIPPED_PARTS)


def git_files_state(root: Path, patterns: Sequence[str]) -> str | None:
    """MD5 of the watched files' entries (mode, object id, path) in path order; None when `root`
    is not the top of a git work tree or git cannot answer, so the caller walks instead."""
    git = shutil.which("git")
    if git is None or not (root / ".git").exists():
        return None
    specs = pathspecs(patterns)
    if not specs:
        return hashlib.md5(b"", usedforsecurity=False).hexdigest()
    listed = _listed(git, root, specs, untracked_pathspecs(patterns))
    if listed is None:
        return None
    entries, changed, untracked = listed
    matches = path_matcher(patterns)
    added = [path for path in untracked if not path.endswith("/") and matches(path)]
    skipped = {path for path in untracked if path.endswith("/")} | _repositories_above(
        root, patterns
    )
    submodules = _submodules(root)  # walked too, as the walk goes into them
    if not (changed or added or skipped or submodules):
        return hashlib.md5(entries, usedforsecurity=False).hexdigest()  # the common case
    skipped |= {f"{path}/" for path in submodules}
    deleted = {path for tag, path in changed if tag == b"R"} | set(map(os.fsencode, submodules))
    modified = {path for tag, path in changed if tag == b"C"} - deleted
    return _digest(root, entries, deleted, modified, added, sorted(skipped), patterns)


def _listed(
    git: str, root: Path, specs: list[str], untracked_specs: list[str]
) -> tuple[bytes, list[tuple[bytes, bytes]], list[str]] | None:
    """(the index records the `specs` match, the (tag, path) of those git finds modified (`C`) or
    deleted (`R`), the untracked paths below `untracked_specs`); None when git cannot answer.
    The records come from the kept listing while the index checksum stays the same."""
    exclude = f"--exclude-per-directory={IGNORE_FILE}"
    changes = ["ls-files", "-z", "-t", "--modified", "--deleted", "--others", exclude]
    if a_core_is_free():  # the stat cache's check and the untracked files' walk side by side
        commands = [[*changes[:5], "--", *untracked_specs], [*changes[:3], *changes[5:]]]
        commands[1] += ["--", *untracked_specs]
    else:
        commands = [[*changes, "--", *untracked_specs]]
    key = index_key(root)
    entries = LISTINGS.get(root, specs, key)
    if entries is not None:
        outputs = run_together(git, root, commands)
        if outputs is None:
            return None
        if index_key(root) == key:
            return entries, *_changes(entries, b"".join(outputs))
        key = index_key(root)  # the index changed while git looked: list it again too
    listing = ["ls-files", "-z", "-t", "--stage", "--cached", "--", *specs]
    outputs = run_together(git, root, [listing, *commands])
    if outputs is None:
        return None
    entries = outputs.pop(0)
    if index_key(root) == key:
        LISTINGS.keep(root, specs, key, entries)
    return entries, *_changes(entries, b"".join(outputs))


def _changes(entries: bytes, output: bytes) -> tuple[list[tuple[bytes, bytes]], list[str]]:
    """The (tag, path) of the `entries` the tagged `output` marks modified (`C`) or deleted
    (`R`), and the untracked paths (`?`) it lists."""
    changed: list[tuple[bytes, bytes]] = []
    untracked: list[str] = []
    for record in _records(output):
        tag, path = record[:2], record[2:]
        if tag == b"? ":
            untracked.append(os.fsdecode(path))
        elif tag in (b"C ", b"R "):
            changed.append((tag[:1], path))
    if len(changed) * SEARCHED_SHARE > entries.count(b"\0"):  # many: one set costs less
        listed = {_path(record) for record in _records(entries)}
        return [item for item in changed if item[1] in listed], untracked
    return [item for item in changed if _holds(entries, item[1])], untracked


def _holds(entries: bytes, path: bytes) -> bool:
    """Whether a record of `entries` (sorted by path) is for `path`."""
    start = _offset(entries, path)
    if start >= len(entries):
        return False
    end = entries.index(b"\0", start)
    return entries[entries.index(b"\t", start, end) + 1 : end] == path


def _repositories_above(root: Path, patterns: Sequence[str]) -> set[str]:
    """Repositories within that hold a pattern's fixed folder (`vendor/lib` for `vendor/lib/src/*`):
    git lists nothing past a repository's edge, so the walk covers them."""
    found = set()
    for prefix in fixed_prefixes(patterns):
        parts = prefix.split("/") if prefix else []
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if (root / folder / ".git").exists():
                found.add(f"{folder}/")
                break
    return found


def _submodules(root: Path) -> list[str]:
    """The paths of the submodules `.gitmodules` declares that are checked out (folders)."""
    try:
        text = (root / ".gitmodules").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    paths = (match.strip().strip('"').strip("/") for match in _SUBMODULE_PATH.findall(text))
    return [path for path in paths if path and (root / path).is_dir()]


def pathspecs(patterns: Sequence[str]) -> list[str]:
    """Git pathspecs for the reviewer's globs (normalized as the walk reads them), and ones that
    leave out other tools' folders; none when no pattern can match a file."""
    specs = []
    for pattern in patterns:
        parts = [p for p in pattern.replace("\\", "/").strip("/").split("/") if p not in ("", ".")]
        if parts:
            specs.append(":(glob)" + "/".join(parts))
    if not specs:
        return []
    return [*specs, *_LEFT_OUT]


def untracked_pathspecs(patterns: Sequence[str]) -> list[str]:
    """The patterns' fixed folders, literally: untracked files are matched here, as the walk
    matches them, and git lists a repository within only when no glob narrows the listing."""
    prefixes = sorted(set(fixed_prefixes(patterns)))
    if "" in prefixes:
        return [".", *_LEFT_OUT]
    return [*(f":(literal){prefix}" for prefix in prefixes), *_LEFT_OUT]


def _records(output: bytes) -> list[bytes]:
    records = output.split(b"\0")
    records.pop()  # after the last NUL
    return records


def _path(record: bytes) -> bytes:
    return record.partition(b"\t")[2]


def _digest(
    root: Path,
    entries: bytes,
    deleted: set[bytes],
    modified: set[bytes],
    added: list[str],
    skipped: list[str],
    patterns: Sequence[str],
) -> str:
    """MD5 of the index's records with deleted files left out, modified and untracked files at
    their content, and the files of repositories within (which git lists as one folder) walked:
    the bytes `git ls-files` would print once all of them were added."""
    if skipped:
        added = list(dict.fromkeys([*added, *_walk_within(root, skipped, patterns)]))
    gone = sorted(deleted | modified)
    record = partial(_record, root, len(modified) + len(added) > HASHED_FILES)
    new = sorted(filter(None, map(record, [*map(os.fsdecode, modified), *added])), key=_path)
    if (len(gone) + len(new)) * 64 > entries.count(b"\0"):  # many: one sort is cheaper
        kept = set(gone)
        records = sorted([*(r for r in _records(entries) if _path(r) not in kept), *new], key=_path)
        return hashlib.md5(b"".join(r + b"\0" for r in records), usedforsecurity=False).hexdigest()
    return _spliced(entries, gone, new)


def _spliced(entries: bytes, gone: list[bytes], new: list[bytes]) -> str:
    """MD5 of `entries` without the records of the `gone` paths and with the `new` records at
    their places, fed in slices: the few changes cost searches, not a pass over every record."""
    edits: list[tuple[int, int, bytes, int | bytes]] = []
    for path in gone:
        start = _offset(entries, path)
        edits.append((start, 1, path, _offset(entries, path, after=True, lo=start)))
    edits += [(_offset(entries, _path(r)), 0, _path(r), r + b"\0") for r in new]
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


def _offset(entries: bytes, path: bytes, *, after: bool = False, lo: int = 0) -> int:
    """Where the first record whose path sorts after `path` (or is it, unless `after`) starts in
    `entries` (records sorted by path, each ended by NUL): a binary search over the bytes."""
    hi = len(entries)
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
