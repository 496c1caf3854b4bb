"""Change detection with the index listing kept between checks equals, hash for hash, the two
`git ls-files` it replaced (benchmarks/git_state_baseline.py, kept verbatim) on the same trees:
after every step, for several reviewers' globs, with git's work split in one process or two, on
a first check and on a repeated one; and when the index changes under a kept listing."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from onlooker.reviewers import (
    git_listing_file,
    git_state,
    git_status_cache,
    git_verdicts,
    tree_splice,
)
from onlooker.reviewers.git_index import IndexListings, index_key
from onlooker.reviewers.git_state import git_files_state
from onlooker.reviewers.git_status_cache import PrivateIndexes
from onlooker.store.home import data_home

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


baseline = _load("git_state_baseline", HERE.parents[1] / "benchmarks" / "git_state_baseline.py")
trees = _load("git_state_trees", HERE / "test_git_state.py")  # its tree, steps and helpers
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
git, write, repository = trees.git, trees.write, trees.repository
PATTERNS = [*trees.PATTERNS, ("vendor/**",), ("lib/**/*.py", "*.txt"), ("**/.hg/*", "src/*")]


@pytest.fixture(params=["searched, named", "a set, all judged"])
def layout(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The changed paths searched for among the index records, or looked up in a set of them;
    the candidates named to `git ls-files`, or every entry judged; git's verdicts kept from one
    check to the next (however fresh the files' stats), or never."""
    named: bool = request.param.endswith("named")
    monkeypatch.setattr(tree_splice, "SEARCHED_SHARE", 0 if named else 10**9)
    monkeypatch.setattr(tree_splice, "MARKED_BYTES", 64)  # searches start between marks
    monkeypatch.setattr(git_verdicts, "ASKED_BY_NAME", 10**9 if named else 0)
    monkeypatch.setattr(git_verdicts, "SETTLED_NS", -(10**12) if named else 10**12)
    yield request.param


@pytest.fixture(autouse=True)
def listings(monkeypatch: pytest.MonkeyPatch) -> IndexListings:
    """Room for a listing per set of globs, so each is kept from one step to the next."""
    kept = IndexListings(kept=len(PATTERNS))
    monkeypatch.setattr(git_state, "LISTINGS", kept)
    return kept


def assert_equal(root: Path, step: str) -> None:
    """The state is the one before: with the listing kept from the last step (and what that
    check found); in a new process, reading what the last left in the data home; in a new
    process when nothing was left (the index listed now); and with that listing kept."""
    for patterns in PATTERNS:
        expected = baseline.git_files_state(root, patterns)
        kept = git_files_state(root, patterns)
        spanning = git_state.LISTINGS, git_state.PRIVATE
        try:
            git_state.LISTINGS, git_state.PRIVATE = IndexListings(), PrivateIndexes()
            first = git_files_state(root, patterns)
            forget_what_processes_left()
            git_state.LISTINGS, git_state.PRIVATE = IndexListings(), PrivateIndexes()
            cold = git_files_state(root, patterns)
            again = git_files_state(root, patterns)
        finally:
            git_state.LISTINGS, git_state.PRIVATE = spanning
        assert kept == first == cold == again == expected, f"{step}: {patterns}"


def forget_what_processes_left() -> None:
    """Remove the index listings and index copies processes left in the data home."""
    for folder in (git_listing_file.FOLDER, git_status_cache.SEEDS):
        shutil.rmtree(data_home() / "run" / folder, ignore_errors=True)


def test_every_step_gives_the_same_state_as_before(tmp_path: Path, layout: str) -> None:
    root = repository(tmp_path / "tree")
    for step, act in trees.STEPS:
        act(root)
        assert_equal(root, step)


def _conflict(root: Path) -> None:
    git(root, "checkout", "-q", "-b", "other")
    write(root, "src/a.py", "a = 'other'\n")
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "-")
    write(root, "src/a.py", "a = 'main'\n")
    git(root, "commit", "-qam", "main")
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    merge = ["git", "-c", "user.name=o", "-c", "user.email=o@example.invalid", "merge", "other"]
    assert subprocess.run(merge, cwd=root, env=env, capture_output=True).returncode == 1


def _symlinks(root: Path) -> None:
    (root / "src/link.py").symlink_to("a.py")
    git(root, "add", "src/link.py")
    (root / "src/link.py").unlink()
    (root / "src/link.py").symlink_to("pkg/b.py")
    (root / "src/loose.py").symlink_to("missing.py")


def _repository_within(root: Path) -> None:
    write(root, "vendor/x/m.py", "m\n")
    git(root / "vendor/x", "init", "-q")


def _svn_kept(root: Path) -> None:
    write(root, "src/.svn/kept.py", "kept\n")
    git(root, "add", "src/.svn/kept.py")
    write(root, "src/.svn/x.py", "s\n")


def _file_to_folder(root: Path) -> None:
    (root / "README.md").unlink()
    write(root, "README.md/inner.md", "now a folder\n")


SCENARIOS: list[tuple[str, Callable[[Path], object]]] = [
    ("touch a file", lambda root: trees.later(root / "src/pkg/b.py")),
    ("then edit it", lambda root: write(root, "src/pkg/b.py", "b = 3\n")),
    ("stage a change", lambda root: (write(root, "src/a.py", "s\n"), git(root, "add", "-A"))),
    ("commit it", lambda root: git(root, "commit", "-qm", "staged")),
    ("modify a staged file", lambda root: write(root, "src/a.py", "after staging\n")),
    ("intent to add", lambda root: (write(root, "src/ita.py", "i\n"), git(root, "add", "-N", "."))),
    ("assume unchanged, edited", lambda root: _assumed(root, "docs/guide.md", "edited\n")),
    ("assume unchanged, deleted", lambda root: _assumed(root, "tests/test_a.py", None)),
    ("skip-worktree, deleted", lambda root: _skipped(root, "src/notes.txt")),
    ("executable bit", lambda root: (root / "src/pkg/b.py").chmod(0o755)),
    ("symbolic links", _symlinks),
    ("a file becomes a folder", _file_to_folder),
    ("a repository within", _repository_within),
    ("a folder of untracked files", lambda root: write(root, "fresh/deep/er/new.py", "n\n")),
    ("one in a .hg folder", lambda root: write(root, "fresh/.hg/store.py", "hg\n")),
    ("a .svn folder git keeps a file of", _svn_kept),
    ("only ignored files", lambda root: write(root, "logs/run.log", "log\n")),
    ("info/exclude names files", lambda root: write(root, ".git/info/exclude", "*.md\nsrc/\n")),
    ("index rewritten by reset", lambda root: git(root, "reset", "-q")),
]


def _assumed(root: Path, name: str, text: str | None) -> None:
    git(root, "update-index", "--assume-unchanged", name)
    if text is None:
        (root / name).unlink()
    else:
        write(root, name, text)


def _skipped(root: Path, name: str) -> None:
    git(root, "update-index", "--skip-worktree", name)
    (root / name).unlink()


def test_what_the_index_marks_gives_the_same_state_as_before(tmp_path: Path, layout: str) -> None:
    root = repository(tmp_path / "tree")
    for step, act in SCENARIOS:
        act(root)
        assert_equal(root, step)


def test_a_merge_conflict_gives_the_same_state_as_before(tmp_path: Path, layout: str) -> None:
    root = repository(tmp_path / "tree")
    _conflict(root)
    assert_equal(root, "unmerged entries")
    write(root, "src/a.py", "a = 'resolved'\n")
    assert_equal(root, "resolved in the work tree")
    git(root, "add", "src/a.py")
    assert_equal(root, "resolved in the index")


def test_another_file_changed_in_a_report_as_long_is_read_anew(tmp_path: Path) -> None:
    root = repository(tmp_path / "tree")
    write(root, "src/b.py", "b\n")
    git(root, "add", "src/b.py")
    git(root, "commit", "-qm", "b")
    write(root, "src/a.py", "a = 'edited'\n")
    assert_equal(root, "a.py edited")
    write(root, "src/a.py", trees.TREE["src/a.py"])  # as committed again; the index unchanged
    write(root, "src/b.py", "b = 'edited'\n")  # git's report: as long, another path
    assert_equal(root, "b.py edited")


def test_an_attributes_file_written_after_a_verdict_was_kept_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(git_verdicts, "SETTLED_NS", -(10**12))  # verdicts kept at once
    root = repository(tmp_path / "tree")
    write(root, ".gitattributes", "*.py text\n")
    (root / "src/crlf.py").write_bytes(b"a = 1\r\n")  # kept with LF in the index
    git(root, "add", ".gitattributes", "src/crlf.py")
    git(root, "commit", "-qm", "crlf")
    trees.later(root / "src/crlf.py")  # touched: a candidate git judges unmodified
    assert_equal(root, "touched")
    write(root, ".gitattributes", "*.py -text\n")  # compared as it is now: modified
    assert_equal(root, "no text attribute")


def test_an_attributes_file_changed_after_git_judged_a_touched_file_counts(tmp_path: Path) -> None:
    """git status refreshes a touched file's stat in the index copy once it judges it unchanged;
    the attributes it judged under change: the copy is taken afresh, in this process and the
    next (whose copy starts from the seed this one left)."""
    root = repository(tmp_path / "tree")
    write(root, ".gitattributes", "*.py text\n")
    (root / "src/crlf.py").write_bytes(b"a = 1\r\n")  # kept with LF in the index
    git(root, "add", ".gitattributes", "src/crlf.py")
    git(root, "commit", "-qm", "crlf")
    info = (root / "src/crlf.py").stat()
    past = info.st_mtime_ns - 10_000_000_000  # touched, long enough ago not to be racy
    os.utime(root / "src/crlf.py", ns=(info.st_atime_ns, past))
    for _ in range(2):
        assert_equal(root, "touched")  # judged unchanged, its stat refreshed in the copy
    write(root, ".gitattributes", "*.py -text\n")  # compared as it is now: modified
    assert_equal(root, "no text attribute")
    write(root, ".gitattributes", "*.py text\n")
    assert_equal(root, "the text attribute again")


def test_git_status_answers_over_a_private_copy_of_the_index(tmp_path: Path) -> None:
    root = repository(tmp_path / "tree")
    index = (root / ".git/index").read_bytes()
    write(root, "src/a.py", "a = 4\n")
    write(root, "src/new/n.py", "n\n")
    assert_equal(root, "changes")
    copy = git_status_cache.PRIVATE.copy(root, root / ".git/index", index_key(root) or b"")
    assert copy is not None and copy.read_bytes() != index  # git status keeps its cache there
    assert (root / ".git/index").read_bytes() == index  # never in the repository's index
    assert copy.parent == data_home() / "run" / f"git-index-{os.getpid()}"


def test_the_index_copies_of_a_process_that_is_gone_are_removed(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    left = data_home() / "run" / f"git-index-{gone.pid}"
    left.mkdir(parents=True)
    (left / "index-0").write_bytes(b"left by a killed worker")
    root = repository(tmp_path / "tree")
    shutil.rmtree(data_home() / "run" / f"git-index-{os.getpid()}", ignore_errors=True)
    write(root, "src/a.py", "a = 5\n")
    assert git_status_cache.PRIVATE.copy(root, root / ".git/index", b"another key") is not None
    assert not left.exists()


def test_a_kept_listing_is_read_again_once_the_index_changes(tmp_path: Path) -> None:
    root = repository(tmp_path / "tree")
    key = index_key(root)
    kept = git_files_state(root, ["**/*"])
    assert kept == baseline.git_files_state(root, ["**/*"])
    write(root, "src/fresh.py", "fresh\n")
    git(root, "add", "src/fresh.py")  # the index changes, the work tree does not
    assert index_key(root) not in (None, key)
    git(root, "rm", "-q", "--cached", "README.md")  # tracked no more: untracked, same content
    now = git_files_state(root, ["**/*"])
    assert now == baseline.git_files_state(root, ["**/*"]) != kept


def test_a_submodule_and_a_linked_work_tree_give_the_same_state_as_before(tmp_path: Path) -> None:
    library = repository(tmp_path / "library")
    root = repository(tmp_path / "project")
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(library), "lib")
    git(root, "commit", "-qm", "with a submodule")
    linked = tmp_path / "linked"
    git(root, "worktree", "add", "-q", str(linked))
    for folder in (root, root / "lib", linked):
        assert index_key(folder) is not None  # `.git` is a file in the last two
        write(folder, "src/a.py", "edited\n")
        assert_equal(folder, str(folder))
    write(root, "lib/src/pkg/b.py", "inside the submodule\n")
    assert_equal(root, "a submodule's file edited")


def test_a_tree_not_yet_added_gives_the_same_state_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tree_splice, "HASHED_FILES", 3)
    monkeypatch.setattr(baseline, "HASHED_FILES", 3)
    root = tmp_path / "tree"
    for name, text in trees.TREE.items():
        write(root, name, text)
    git(root, "init", "-q")
    assert index_key(root) is None  # no index yet: nothing kept
    assert_equal(root, "no index")
    git(root, "add", "src")
    for number in range(100):
        write(root, f"src/many/m{number}.py", f"{number}\n")
    assert_equal(root, "many untracked")
    os.utime(root / "src/many/m1.py", ns=(0, 0))
    assert_equal(root, "one touched")
