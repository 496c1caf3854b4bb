"""The .gitignore matcher against what `git check-ignore` says about the same tree."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from onlooker.text.ignore import IgnoreRules, parse_rules

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
    rules = IgnoreRules(tuple(parse_rules(RULES.splitlines())))
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
