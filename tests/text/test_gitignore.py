"""The .gitignore rules (pathspec's GitIgnoreSpec per file) against what git says about the same
tree."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from onlooker.reviewers.watch import watched_files
from onlooker.text.ignore import IgnoreRules

RULES = """\
# build output
build/
*.log
!keep.log
/top-only.txt
docs/**/draft-*.md
a/**/b
\\#hash.txt
cache?
[Tt]emp
"""

PATHS = (
    "build",
    "src/build",
    "x.log",
    "src/x.log",
    "keep.log",
    "top-only.txt",
    "src/top-only.txt",
    "docs/draft-1.md",
    "docs/a/b/draft-2.md",
    "docs/final.md",
    "a/b",
    "a/x/y/b",
    "#hash.txt",
    "cache1",
    "cache12",
    "Temp",
    "temp",
    "tmp",
)


def ours(path: str, is_dir: bool) -> bool:
    rules = IgnoreRules().with_lines(RULES.splitlines())
    return rules.ignored(path, is_dir)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_matches_git_check_ignore(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(RULES)
    dirs = {"build", "src/build"}
    for path in PATHS:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if path in dirs:
            target.mkdir(exist_ok=True)
        else:
            target.write_text("x")
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin"],
        cwd=tmp_path,
        input="\n".join(PATHS),
        capture_output=True,
        text=True,
    )
    ignored_by_git = set(result.stdout.split())
    assert ignored_by_git, result.stderr
    mismatches = [p for p in PATHS if ours(p, p in dirs) != (p in ignored_by_git)]
    assert not mismatches, ignored_by_git


def test_the_last_matching_rule_wins_and_directory_rules_skip_files() -> None:
    assert ours("debug.log", False)
    assert not ours("keep.log", False)
    assert ours("build", True)
    assert not ours("build", False)
    assert ours("build/out.o", False)
    assert ours("top-only.txt", False) and not ours("src/top-only.txt", False)


def test_a_nested_file_only_governs_its_own_directory(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("*.tmp\n")
    rules = IgnoreRules().with_file(tmp_path / "sub" / ".gitignore", "sub")
    assert rules.ignored("sub/a.tmp", False)
    assert rules.ignored("sub/deep/a.tmp", False)
    assert not rules.ignored("a.tmp", False)
    assert IgnoreRules().with_file(tmp_path / "missing", "") == IgnoreRules()


def test_a_deeper_file_overrides_a_shallower_one() -> None:
    rules = IgnoreRules().with_lines(["*.log", "/out/", "notes.txt"])
    rules = rules.with_lines(["!keep.log", "out/", "/notes.txt"], "sub")
    assert rules.ignored("sub/a.log", False)
    assert not rules.ignored("sub/keep.log", False)  # sub's negation beats the root's *.log
    assert rules.ignored("keep.log", False)  # the negation governs sub/ only
    assert rules.ignored("out", True) and not rules.ignored("deep/out", True)  # anchored at root
    assert rules.ignored("sub/x/out", True) and not rules.ignored("sub/x/out", False)
    assert rules.ignored("sub/notes.txt", False) and rules.ignored("sub/x/notes.txt", False)
    only_negations = IgnoreRules().with_lines(["!*.py"])
    assert not only_negations.ignored("a.py", False) and not only_negations.ignored("a.txt", False)
    assert IgnoreRules().with_lines(["# a comment", ""]) == IgnoreRules()


NESTED = {
    ".gitignore": "*.log\nbuild/\n/root-only.txt\ndocs/**/draft-*\n!important.log\nvendor/**\n"
    "!vendor/keep.py\nthird/**\n!third/lib/keep.py\n",
    "sub/.gitignore": "!kept.log\n/local.txt\ncache/\n*.tmp\n",
    "sub/deep/.gitignore": "!*.tmp\nlocal.txt\n",
}
FILES = (
    "a.log", "important.log", "root-only.txt", "sub/root-only.txt", "build/x.py", "sub/build/y.py",
    "docs/a/b/draft-1.md", "docs/final.md", "sub/a.log", "sub/kept.log", "sub/local.txt",
    "sub/x/local.txt", "sub/cache/z", "sub/cachefile", "sub/a.tmp", "sub/deep/b.tmp",
    "sub/deep/local.txt", "sub/deep/kept.log", "sub/deep/c.log", "src/main.py", "vendor/keep.py",
    "vendor/other.py", "vendor/lib/keep.py", "third/lib/keep.py", "third/x.py", "src/a.py",
    "src/b.txt", "src/build/y.py", "test1/a.txt", "test1/build/z.py", "d/e/f.py", "d/c.txt",
    "x.py/inner.txt", "ab/c/d.txt", "]", "b", "#hash", "!bang", "trail ", "logs/debug.log",
    "a/logs/debug.log", "node_modules/p/i.js",
)  # fmt: skip

RULE_SETS = [
    {".gitignore": rules}
    for rules in (
        "*.log\n!keep.log", "build/", "build", "/build/", "foo/**\n!foo/keep", "foo/*\n!foo/keep",
        "*\n!*/\n!*.py", "*.txt\n!test1/", "build/\n!test1/", "*\n!*/\n!*.py\nbuild/", "[]a]",
        "**/logs/debug.log", "logs/", "doc*/**/draft-*", "a*\n!ab/", "!ab/\na*", "*/\n!src/",
        "src/*\n!src/a.py", "*.py\n!/src/", "x.py", "x.py/", "\\#hash\n\\!bang", "trail\\ ",
        "**/build/**", "vendor/**\n!vendor/keep.py\nvendor/lib/", "/*\n!/src", "*.txt\n!*/b.txt",
    )
] + [
    NESTED,
    {".gitignore": "*.tmp", "sub/.gitignore": "!*.tmp", "sub/deep/.gitignore": "b.tmp"},
    {".gitignore": "src/", "src/.gitignore": "!*"},
    {".gitignore": "*\n!*/\n!.gitignore", "src/.gitignore": "!*.py"},
    {"src/.gitignore": "/build/\n*.txt", "src/build/.gitignore": "!*"},
]  # fmt: skip
"""Negation, directory-only, anchored and `**` patterns, whitelists, classes and escapes, and
nested files that override their parents'."""


def kept_by_git(root: Path, ignore_files: dict[str, str]) -> list[str]:
    """Make the tree in a fresh repository; the files git would add, .gitignore files left out."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for name, text in {**{path: "x" for path in FILES}, **ignore_files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"{text}\n")
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "-z"],
        cwd=root, capture_output=True, text=True, check=True,
    ).stdout.split("\0")  # fmt: skip
    return sorted(path for path in listed if path and path not in ignore_files)


def walked(root: Path, ignore_files: dict[str, str]) -> list[str]:
    return [f.path for f in watched_files(root, ["**/*"]) if f.path not in ignore_files]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_nested_files_override_their_parents_as_in_git(tmp_path: Path) -> None:
    git = kept_by_git(tmp_path, NESTED)
    assert {"sub/kept.log", "sub/deep/b.tmp", "vendor/keep.py"} <= set(git)
    assert "third/lib/keep.py" not in git  # its directory is ignored: no way back
    assert walked(tmp_path, NESTED) == git


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("ignore_files", RULE_SETS, ids=lambda files: repr(files)[:60])
def test_the_watched_files_are_those_git_would_add(
    tmp_path: Path, ignore_files: dict[str, str]
) -> None:
    git = kept_by_git(tmp_path, ignore_files)
    assert walked(tmp_path, ignore_files) == git
