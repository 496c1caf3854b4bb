"""Change detection from git's index and stat cache against the walk it replaced in git work trees
(benchmarks/files_state_baseline.py, kept verbatim): on the same trees, the same steps change the
state or leave it, for several reviewers' globs; outside git the walk is today's, hash for hash."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from onlooker.reviewers import tree_splice
from onlooker.reviewers.git_state import git_files_state
from onlooker.reviewers.watch import files_state

BASELINE = Path(__file__).resolve().parents[2] / "benchmarks" / "files_state_baseline.py"


def _load_baseline() -> ModuleType:
    spec = importlib.util.spec_from_file_location("files_state_baseline", BASELINE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


baseline = _load_baseline()
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

PATTERNS = (
    ("**/*",),
    ("src/**/*.py",),
    ("*.md", "docs/*"),
    ("src/*.py", "tests/**"),
    ("build/**",),
    ("missing/**/*.py",),
)
TREE = {
    ".gitignore": "build/\n*.log\n/scratch/\n!/scratch/keep.md\n",
    "README.md": "# project\n",
    "docs/guide.md": "guide\n",
    "docs/deep/more.md": "more\n",
    "src/a.py": "a = 1\n",
    "src/pkg/b.py": "b = 2\n",
    "src/pkg/.gitignore": "secret_*.py\n",
    "src/pkg/deep/er/c.py": "c = 3\n",
    "src/notes.txt": "notes\n",
    "tests/test_a.py": "def test(): pass\n",
    "build/out.py": "built\n",
    "app.log": "log\n",
}


def git(root: Path, *args: str) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    identity = ["-c", "user.name=onlooker", "-c", "user.email=onlooker@example.invalid"]
    subprocess.run(
        ["git", *identity, *args], cwd=root, env=env, check=True, capture_output=True
    )  # fmt: skip


def write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    later(path)


def later(path: Path) -> None:
    """Move a file's mtime a second on: the walk sees every write, however fast the clock ticks."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))


def repository(root: Path) -> Path:
    for name, text in TREE.items():
        write(root, name, text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    return root


Step = tuple[str, Callable[[Path], object]]

STEPS: list[Step] = [
    ("nothing", lambda root: None),
    ("modify in place, same size", lambda root: write(root, "src/a.py", "a = 2\n")),
    ("modify it again", lambda root: write(root, "src/a.py", "a = 3\n")),
    ("add an untracked file", lambda root: write(root, "src/new.py", "new\n")),
    ("add one in a nested folder", lambda root: write(root, "src/pkg/deep/er/d.py", "d\n")),
    ("add an ignored file", lambda root: write(root, "debug.log", "x\n")),
    ("add one in an ignored folder", lambda root: write(root, "build/more.py", "x\n")),
    ("add one a nested .gitignore ignores", lambda root: write(root, "src/pkg/secret_k.py", "k")),
    ("modify an ignored file", lambda root: write(root, "app.log", "longer log\n")),
    ("add a re-included file", lambda root: write(root, "scratch/keep.md", "keep\n")),
    ("add an unmatched file", lambda root: write(root, "src/data.json", "{}\n")),
    ("modify an untracked file", lambda root: write(root, "src/new.py", "newer\n")),
    ("delete a tracked file", lambda root: (root / "src/pkg/b.py").unlink()),
    ("delete an untracked file", lambda root: (root / "src/new.py").unlink()),
    ("rename a tracked file", lambda root: (root / "docs/guide.md").rename(root / "docs/g.md")),
    ("rename a folder", lambda root: (root / "src/pkg/deep").rename(root / "src/pkg/low")),
    ("un-ignore by .gitignore", lambda root: write(root, ".gitignore", "build/\n")),
    ("add an empty folder", lambda root: (root / "src/empty").mkdir()),
    ("add a file in .git", lambda root: write(root, ".git/notes.py", "not watched\n")),
]


@pytest.mark.parametrize("patterns", PATTERNS, ids="|".join)
def test_each_step_changes_the_state_when_the_walk_s_state_changes(
    tmp_path: Path, patterns: tuple[str, ...]
) -> None:
    root = repository(tmp_path / "tree")
    before_git, before_walk = files_state(root, patterns), baseline.files_state(root, patterns)
    assert git_files_state(root, patterns) == before_git  # git answered, no walk
    for step, act in STEPS:
        act(root)
        now_git, now_walk = files_state(root, patterns), baseline.files_state(root, patterns)
        walk_changed = now_walk != before_walk
        assert (now_git != before_git) == walk_changed, f"{step}: the walk changed {walk_changed}"
        before_git, before_walk = now_git, now_walk


def test_a_modified_file_staged_or_committed_or_only_touched_keeps_its_state(
    tmp_path: Path,
) -> None:
    root = repository(tmp_path / "tree")
    first = files_state(root, ["**/*"])
    write(root, "src/a.py", "a = 100\n")
    write(root, "src/fresh.py", "fresh\n")
    edited = files_state(root, ["**/*"])
    assert edited != first
    git(root, "add", "-A")
    assert files_state(root, ["**/*"]) == edited  # the same content, staged
    git(root, "commit", "-qm", "edit")
    assert files_state(root, ["**/*"]) == edited  # and committed
    later(root / "src/pkg/b.py")
    assert files_state(root, ["**/*"]) == edited  # a touch: git compares the content
    write(root, "src/a.py", "a = 1\n")
    assert files_state(root, ["**/*"]) not in (edited, first)
    git(root, "reset", "-q", "--hard", "HEAD~1")  # the first commit's tree: the first state again
    assert files_state(root, ["**/*"]) == first


def test_a_tracked_file_a_gitignore_names_still_counts_as_git_keeps_it(tmp_path: Path) -> None:
    root = repository(tmp_path / "tree")
    write(root, "kept.log", "tracked on purpose\n")
    git(root, "add", "-f", "kept.log")
    before = files_state(root, ["**/*.log"])
    write(root, "kept.log", "changed\n")
    assert files_state(root, ["**/*.log"]) != before
    assert baseline.files_state(root, ["**/*.log"]) == baseline.files_state(root, ["none"])


def test_a_repository_within_is_walked(tmp_path: Path) -> None:
    root = repository(tmp_path / "tree")
    inner = root / "vendor/lib"
    write(root, "vendor/lib/mod.py", "m\n")
    write(root, "vendor/lib/src/deep.py", "d\n")
    write(root, "vendor/lib/skip.log", "ignored by the outer .gitignore\n")
    git(inner, "init", "-q")
    patterns = ["**/*.py", "vendor/**", "vendor/lib/*.py", "vendor/lib/src/*.py"]
    before = {p: files_state(root, [p]) for p in patterns}
    write(root, "vendor/lib/mod.py", "changed\n")
    write(root, "vendor/lib/src/deep.py", "changed\n")
    assert all(files_state(root, [p]) != before[p] for p in patterns)
    again = {p: files_state(root, [p]) for p in patterns}
    write(root, "vendor/lib/skip.log", "still ignored\n")
    write(root, "vendor/lib/.git/hook.py", "inside .git\n")
    assert {p: files_state(root, [p]) for p in patterns} == again


def test_outside_a_work_tree_top_the_walk_is_today_s_hash_for_hash(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    for name, text in TREE.items():
        write(plain, name, text)
    repository(tmp_path / "repo")
    below = tmp_path / "repo" / "src"  # inside a work tree, but not its top
    broken = tmp_path / "broken"
    for name, text in TREE.items():
        write(broken, name, text)
    (broken / ".git").write_text("gitdir: /nowhere\n")  # git cannot answer: the walk does
    for root in (plain, below, broken):
        assert git_files_state(root, ["**/*"]) is None
        for patterns in PATTERNS:
            assert files_state(root, patterns) == baseline.files_state(root, patterns)


def test_patterns_that_match_nothing_give_one_state(tmp_path: Path) -> None:
    root = repository(tmp_path / "tree")
    empty = files_state(root, ["missing/**"])
    assert files_state(root, [".", ""]) == files_state(root, []) == empty
    write(root, "src/a.py", "a = 9\n")
    assert files_state(root, ["missing/**"]) == empty


def test_a_submodule_s_files_are_walked_as_before(tmp_path: Path) -> None:
    library = repository(tmp_path / "library")
    root = repository(tmp_path / "project")
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    git(root, "commit", "-qm", "with a submodule")
    before_git = files_state(root, ["**/*.py"])
    before_walk = baseline.files_state(root, ["**/*.py"])
    write(root, "lib/src/a.py", "a = 5\n")  # inside the submodule, not committed there
    assert files_state(root, ["**/*.py"]) != before_git
    assert baseline.files_state(root, ["**/*.py"]) != before_walk
    edited = files_state(root, ["**/*.py"])
    write(root, "lib/build/ignored.py", "the submodule's .gitignore\n")
    write(root, "lib/notes.txt", "not matched\n")
    assert files_state(root, ["**/*.py"]) == edited


def test_a_tree_not_yet_added_counts_its_many_files_by_mtime_and_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tree_splice, "HASHED_FILES", 3)  # more untracked files than this
    root = tmp_path / "tree"
    for name, text in TREE.items():
        write(root, name, text)
    git(root, "init", "-q")
    before_git, before_walk = files_state(root, ["**/*"]), baseline.files_state(root, ["**/*"])
    for step, act in STEPS[:8]:
        act(root)
        now_git, now_walk = files_state(root, ["**/*"]), baseline.files_state(root, ["**/*"])
        assert (now_git != before_git) == (now_walk != before_walk), step
        before_git, before_walk = now_git, now_walk
    later(root / "README.md")  # by mtime now: a touch counts, as in the walk
    assert files_state(root, ["**/*"]) != before_git
