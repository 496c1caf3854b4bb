""".gitignore rules as git applies them, for walks that skip what git ignores; pathspec matches.

The deepest `.gitignore` with a matching pattern decides; a screen made of all ignoring patterns'
own regexes clears most paths with one regex match before pathspec's `GitIgnoreSpec` is asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

IGNORE_FILE = ".gitignore"
_GROUP_NAME = re.compile(r"\(\?P<\w+>")
_ANY_DEPTH = "^(?:.+/)?"
"""How pathspec's regex for a pattern without a slash (`*.log`) starts."""


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """The patterns of one `.gitignore`; `base` is its directory, relative to the root.

    Files are asked of the patterns as written. Directories are asked, by their plain path, of a
    reading in which `name/` is `name` (it applies to them) and `name/**` is `name/*` (what is
    inside, not `name` itself): pathspec's way of asking about a directory, `name/`, cannot tell a
    pattern that matches the directory from one that matches its parent, and counts the directory
    itself as matched by `name/**`.
    """

    base: str
    specs: tuple[GitIgnoreSpec, GitIgnoreSpec]
    """For files, for directories (indexed by `is_dir`)."""

    @classmethod
    def read(cls, lines: Iterable[str], base: str = "") -> IgnoreFile | None:
        """The patterns in `lines`; None when there are none (blank lines and comments only)."""
        written = [line for line in lines if line.strip() and not line.startswith("#")]
        if not written:
            return None
        from pathspec import GitIgnoreSpec  # imported when a .gitignore is read, not at start-up

        directories = [_for_directories(line) for line in written]
        return cls(base, (GitIgnoreSpec.from_lines(written), GitIgnoreSpec.from_lines(directories)))

    def relative(self, path: str) -> str | None:
        """`path` relative to `base`; None when it is not below it."""
        if not self.base:
            return path
        return path[len(self.base) + 1 :] if path.startswith(self.base + "/") else None

    def verdict(self, path: str, is_dir: bool) -> bool | None:
        """True: ignored; False: re-included; None: no pattern matches `path`."""
        rel = self.relative(path)
        return None if rel is None else self.specs[is_dir].check_file(rel).include


@dataclass(frozen=True, slots=True)
class IgnoreRules:
    """The rules in force in one directory: its ancestors' files first, its own last."""

    files: tuple[IgnoreFile, ...] = ()
    screens: tuple[re.Pattern[str] | None, re.Pattern[str] | None] = field(
        default=(None, None), init=False, compare=False, repr=False
    )
    """For files, for directories: one regex that matches what any ignoring pattern in force
    matches; None when no pattern ignores."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "screens", (_screen(self.files, 0), _screen(self.files, 1)))

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether git would ignore `path` (relative to the root, `/`-separated; its parent
        directories are assumed not ignored)."""
        screen = self.screens[is_dir]
        if screen is None or screen.match(path) is None:
            return False  # the common case: one regex match
        for file in reversed(self.files):  # the deepest file with a matching pattern decides
            verdict = file.verdict(path, is_dir)
            if verdict is not None:
                return verdict
        return False

    def with_lines(self, lines: Iterable[str], base: str = "") -> IgnoreRules:
        """These rules plus the patterns `lines` of the `.gitignore` in directory `base`."""
        added = IgnoreFile.read(lines, base)
        return self if added is None else IgnoreRules((*self.files, added))

    def with_file(self, file: Path, base: str) -> IgnoreRules:
        """These rules plus those of `file` (the `.gitignore` of directory `base`), if it exists."""
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return self
        return self.with_lines(text.splitlines(), base)


def _for_directories(line: str) -> str:
    """The pattern as it applies to a directory asked about by its plain path."""
    pattern = line if line.endswith("\\ ") else line.rstrip(" ")
    if pattern.endswith("/**"):
        return pattern[:-1]
    return pattern[:-1] if pattern.endswith("/") and pattern.strip("!/") else pattern


def _screen(files: tuple[IgnoreFile, ...], kind: int) -> re.Pattern[str] | None:
    """The union of every ignoring pattern in `files` (for files: kind 0, directories: 1), each
    behind its file's directory, used with `match`."""
    parts = []
    for file in files:
        union = _union(file.specs[kind])
        if union is not None:
            parts.append(f"{re.escape(file.base + '/') if file.base else ''}(?:{union})")
    if not parts:
        return None
    try:
        return re.compile("|".join(f"(?:{part})" for part in parts))
    except re.error:  # a regex that does not combine: every path goes to the specs
        return re.compile("")


def _union(spec: GitIgnoreSpec) -> str | None:
    """The spec's ignoring patterns as one regex to `match` from the start (pathspec searches each
    one; most are anchored already). Patterns that may match at any depth share that prefix, so a
    path is split at its slashes once rather than once per pattern."""
    regexes = [
        _GROUP_NAME.sub("(?:", p.regex.pattern)
        for p in spec.patterns
        if p.include and p.regex is not None
    ]
    if not regexes:
        return None
    any_depth = [r[len(_ANY_DEPTH) :] for r in regexes if r.startswith(_ANY_DEPTH)]
    others = [
        r[1:] if r.startswith("^") else rf"[\s\S]*?(?:{r})"
        for r in regexes
        if not r.startswith(_ANY_DEPTH)
    ]
    if any_depth:
        others.append(_ANY_DEPTH[1:] + "(?:" + "|".join(f"(?:{r})" for r in any_depth) + ")")
    return "|".join(f"(?:{r})" for r in others)
