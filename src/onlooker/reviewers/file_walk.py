"""The files a reviewer's globs match under the project root, found by a walk: only below each
glob's fixed prefix, skipping `.git` (and `.hg`, `.svn`) and what `.gitignore` files ignore; and the
state of those files by their (path, mtime, size), for folders git does not keep.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..text.globs import glob_regex
from ..text.ignore import IGNORE_FILE, IgnoreRules

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


def walk_state(root: Path, patterns: Sequence[str]) -> str:
    """MD5 of the sorted (path, mtime, size) of the watched files, found by the walk."""
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


def watched_below(root: Path, folder: str, patterns: Sequence[str]) -> list[WatchedFile]:
    """The files below `folder` that any pattern matches, as the walk finds them, sorted by path."""
    found: dict[str, WatchedFile] = {}
    for _, regex, _ in _plans(patterns):
        for item in _walk(root, folder.strip("/"), regex, None):
            found.setdefault(item.path, item)
    return [found[path] for path in sorted(found)]


def path_matcher(patterns: Sequence[str]) -> Callable[[str], bool]:
    """Whether a path (relative to the root, `/`-separated) is one the walk would match: below a
    pattern's fixed prefix, at its depth, and matching it."""
    plans = [
        (f"{fixed}/" if fixed else "", regex, depth) for fixed, regex, depth in _plans(patterns)
    ]

    def matches(path: str) -> bool:
        for prefix, regex, depth in plans:
            if not path.startswith(prefix):
                continue
            if depth is not None and path.count("/") - prefix.count("/") != depth - 1:
                continue
            if regex.fullmatch(path):
                return True
        return False

    return matches


def fixed_prefixes(patterns: Sequence[str]) -> list[str]:
    """The folders the walk starts from, one per pattern ('' for the root)."""
    return [prefix for prefix, _, _ in _plans(patterns)]
