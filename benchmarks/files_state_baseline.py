"""The reviewers' change detection as it was before issue 31, kept verbatim as the reference: the
files the globs match, found by a walk below each glob's fixed prefix that skips `.git` and what
`.gitignore` files ignore, and MD5 of their sorted (path, mtime, size).

The git-backed `files_state` is compared with it on the same trees (tests/reviewers/
test_git_state.py) and timed against it (benchmarks/bench_git_state.py).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from onlooker.text.globs import glob_regex
from onlooker.text.ignore import IGNORE_FILE, IgnoreRules

SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})
_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class WatchedFile:
    path: str
    """Relative to the project root, `/`-separated."""
    mtime_ns: int
    size: int


def watched_files(root: Path, patterns: Sequence[str]) -> list[WatchedFile]:
    """The files under `root` that any pattern matches, sorted by path (ignored files left out)."""
    found: dict[str, WatchedFile] = {}
    for prefix, regex, depth in _plans(patterns):
        for item in _walk(root, prefix, regex, depth):
            found.setdefault(item.path, item)
    return [found[path] for path in sorted(found)]


def files_state(root: Path, patterns: Sequence[str]) -> str:
    """MD5 of the sorted (path, mtime, size) of the watched files (the files' state)."""
    text = "".join(f"{f.path}\0{f.mtime_ns}\0{f.size}\n" for f in watched_files(root, patterns))
    return hashlib.md5(text.encode("utf-8", "replace"), usedforsecurity=False).hexdigest()


def _plans(patterns: Sequence[str]) -> list[tuple[str, re.Pattern[str], int | None]]:
    """Per pattern: the fixed directory prefix to walk from, the full-path regex, and the depth
    below the prefix (None when `**` makes it unbounded)."""
    plans = []
    for pattern in patterns:
        parts = [p for p in pattern.replace("\\", "/").strip("/").split("/") if p not in ("", ".")]
        fixed: list[str] = []
        for part in parts[:-1]:
            if _GLOB_CHARS.search(part):
                break
            fixed.append(part)
        rest = parts[len(fixed) :]
        depth = None if "**" in rest else len(rest)
        regex = re.compile(glob_regex("/".join(parts)), re.S)
        plans.append(("/".join(fixed), regex, depth))
    return plans


def _walk(
    root: Path, prefix: str, regex: re.Pattern[str], depth: int | None
) -> Iterator[WatchedFile]:
    rules = IgnoreRules().with_file(root / IGNORE_FILE, "")
    parts = prefix.split("/") if prefix else []
    for i, part in enumerate(parts):  # the rules of the directories above the prefix
        above = "/".join(parts[: i + 1])
        if part in SKIPPED_DIRS or rules.ignored(above, True):
            return
        rules = rules.with_file(root / above / IGNORE_FILE, above)
    stack: list[tuple[str, IgnoreRules, int]] = [(prefix, rules, 1)]
    while stack:
        rel, rules, level = stack.pop()
        try:
            entries = os.scandir(root / rel if rel else root)
        except OSError:
            continue
        with entries:
            for entry in entries:
                path = f"{rel}/{entry.name}" if rel else entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if entry.name in SKIPPED_DIRS or (depth is not None and level >= depth):
                        continue
                    if not rules.ignored(path, True):
                        inner = rules.with_file(Path(entry.path) / IGNORE_FILE, path)
                        stack.append((path, inner, level + 1))
                elif (depth is None or level == depth) and regex.fullmatch(path):
                    if rules.ignored(path, False):
                        continue
                    try:
                        stat = entry.stat()
                    except OSError:
                        continue
                    yield WatchedFile(path, stat.st_mtime_ns, stat.st_size)
