"""The hand-written .gitignore matcher onlooker had before pathspec: the rehash baseline.

Same interface as `onlooker.text.ignore.IgnoreRules` (`with_file`, `ignored`), so the benchmark
swaps it into the reviewers' file walk and times both on the same tree in the same run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from onlooker.text.globs import glob_regex


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """One pattern line, compiled; `base` is the directory of its file, relative to the root."""

    pattern: re.Pattern[str]
    """Matches the path itself."""
    inside: re.Pattern[str]
    """Matches paths below a matching directory."""
    base: str
    negated: bool
    directories_only: bool

    def matches(self, path: str, is_dir: bool) -> bool:
        """Does this rule match `path` (relative to the walk's root, `/`-separated)?"""
        if self.base:
            if not path.startswith(self.base + "/"):
                return False
            path = path[len(self.base) + 1 :]
        if self.pattern.fullmatch(path) is not None and (is_dir or not self.directories_only):
            return True
        return self.inside.fullmatch(path) is not None


@dataclass(frozen=True, slots=True)
class IgnoreRules:
    """The rules in force in one directory: its ancestors' files first, its own last."""

    rules: tuple[IgnoreRule, ...] = ()
    _screens: tuple[re.Pattern[str] | None, re.Pattern[str] | None] = field(
        default=(None, None), compare=False, repr=False
    )
    """For files, for directories: one regex any ignoring rule matches, so most paths are
    cleared by a single match."""

    def __post_init__(self) -> None:
        ignoring = [r for r in self.rules if not r.negated]
        if ignoring:
            screens = (_screen(ignoring, is_dir=False), _screen(ignoring, is_dir=True))
            object.__setattr__(self, "_screens", screens)

    def ignored(self, path: str, is_dir: bool) -> bool:
        """Whether git would ignore `path` (its parent directories are assumed not ignored)."""
        screen = self._screens[is_dir]
        if screen is None or screen.fullmatch(path) is None:
            return False
        verdict = False
        for rule in self.rules:
            if rule.negated == verdict and rule.matches(path, is_dir):
                verdict = not rule.negated
        return verdict

    def with_file(self, file: Path, base: str) -> IgnoreRules:
        """These rules plus those of `file` (the `.gitignore` of directory `base`), if it exists."""
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return self
        added = tuple(parse_rules(text.splitlines(), base))
        return IgnoreRules(self.rules + added) if added else self


def _screen(rules: list[IgnoreRule], *, is_dir: bool) -> re.Pattern[str]:
    parts = []
    for rule in rules:
        base = re.escape(rule.base + "/") if rule.base else ""
        parts.append(f"{base}(?:{rule.inside.pattern})")
        if is_dir or not rule.directories_only:
            parts.append(f"{base}(?:{rule.pattern.pattern})")
    return re.compile("|".join(parts), re.S)


def parse_rules(lines: Iterable[str], base: str = "") -> Iterable[IgnoreRule]:
    """The rules of a `.gitignore` whose directory is `base` (relative to the root, '' for it)."""
    for line in lines:
        rule = _rule(line, base)
        if rule is not None:
            yield rule


def _rule(line: str, base: str) -> IgnoreRule | None:
    line = line.rstrip("\n\r")
    if not line.strip() or line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip(" ")
    negated = line.startswith("!")
    if negated or line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    directories_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    body = glob_regex(line)
    pattern = body if anchored else f"(?:.*/)?{body}"
    # A matched directory ignores everything below it too (walkers prune it; this catches paths).
    return IgnoreRule(
        re.compile(pattern, re.S), re.compile(f"{pattern}/.*", re.S), base, negated,
        directories_only,
    )  # fmt: skip
