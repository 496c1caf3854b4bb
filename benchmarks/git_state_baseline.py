"""The reviewers' change detection in a git work tree as it was before the index listing was kept
between checks (issue 31): two `git ls-files` at once on every check. Kept verbatim (but for its
imports) as the reference the faster `git_files_state` must equal hash for hash
(tests/reviewers/test_git_state_equal.py), and timed beside it (benchmarks/bench_git_state.py).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from onlooker.reviewers.file_walk import fixed_prefixes, path_matcher, watched_below
from onlooker.text.ignore import IGNORE_FILE

GIT_TIMEOUT = 30.0
"""Seconds git may take before the walk answers instead."""
HASHED_SIZE = 1 << 20
"""A modified or untracked file larger than this counts by its mtime and size, not its content."""
HASHED_FILES = 2_000
"""With more modified and untracked files than this (a tree not yet added to git), they all count
by their mtime and size: reading them all would cost more than the walk did."""
SKIPPED_PARTS = (".hg", ".svn")
"""Other tools' folders the file walk skips too (git never lists `.git`)."""
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
    exclude = f"--exclude-per-directory={IGNORE_FILE}"
    commands = (
        ["ls-files", "-z", "-t", "--stage", "--cached", "--modified", "--deleted", "--", *specs],
        ["ls-files", "-z", "--others", exclude, "--", *untracked_pathspecs(patterns)],
    )
    outputs = _run_together(git, root, commands)
    if outputs is None:
        return None
    entries, untracked = outputs
    changed = _changed(entries)
    matches = path_matcher(patterns)
    listed = [os.fsdecode(path) for path in _records(untracked)]
    added = [path for path in listed if not path.endswith("/") and matches(path)]
    skipped = {path for path in listed if path.endswith("/")} | _repositories_above(root, patterns)
    submodules = _submodules(root)  # walked too, as the walk goes into them
    if not (changed or added or skipped or submodules):
        return hashlib.md5(entries, usedforsecurity=False).hexdigest()  # the common case
    skipped |= {f"{path}/" for path in submodules}
    deleted = {path for tag, path in changed if tag == b"R"} | set(map(os.fsencode, submodules))
    modified = {path for tag, path in changed if tag == b"C"} - deleted
    return _digest(root, entries, deleted, modified, added, sorted(skipped), patterns)


def _changed(entries: bytes) -> list[tuple[bytes, bytes]]:
    """The (tag, path) of the entries git found modified (`C`) or deleted (`R`)."""
    found = []
    data = b"\0" + entries
    for tag in (b"C", b"R"):
        needle = b"\0" + tag + b" "  # a record's start: a scan in C, not a regex at every byte
        at = data.find(needle)
        while at != -1:
            end = data.index(b"\0", at + 1)
            found.append((tag, data[at + 1 : end].partition(b"\t")[2]))
            at = data.find(needle, end)
    return found


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


def _run_together(git: str, root: Path, commands: Sequence[list[str]]) -> list[bytes] | None:
    """The outputs of the git `commands`, run at once in `root`; None when one fails or outlasts
    `GIT_TIMEOUT` (git's own variables left out, so no hook's GIT_DIR points it elsewhere)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    options = {"cwd": root, "env": env, "stdin": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    running: list[subprocess.Popen[bytes]] = []
    try:
        for command in commands:
            argv = [git, "-c", "core.quotePath=false", *command]
            running.append(subprocess.Popen(argv, stdout=subprocess.PIPE, **options))  # type: ignore[call-overload]
        outputs = [process.communicate(timeout=GIT_TIMEOUT)[0] for process in running]
    except (OSError, subprocess.TimeoutExpired):
        for process in running:
            process.kill()
            process.wait()
        return None
    if any(process.returncode != 0 for process in running):
        return None
    return outputs


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
