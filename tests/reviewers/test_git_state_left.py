"""What a process leaves in the data home for the next one's change detection (the index listing,
the last state found, the index copy with git's untracked cache): a new process reads it, in real
processes, and finds the same state as before (benchmarks/git_state_baseline.py); what is not
whole, or was left under another index, is not read; the repository's `.git` is never written."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_git_state_equal import baseline, git, repository, write

from onlooker.reviewers import git_listing_file, git_state, git_status_cache, tree_splice
from onlooker.reviewers.git_index import IndexListing, IndexListings, index_key
from onlooker.reviewers.git_state import git_files_state, pathspecs
from onlooker.reviewers.git_status_cache import PrivateIndexes
from onlooker.store.home import data_home

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
PATTERNS = ["**/*"]
CHECK = """
import sys
from pathlib import Path
from onlooker.reviewers.watch import files_state
print(files_state(Path(sys.argv[1]), ["**/*"]))
"""


def check_in_a_new_process(root: Path, logged: Path) -> str:
    """The state a new process finds, with the git commands it ran logged to `logged` (git is
    run through a script that logs its arguments and runs the real git)."""
    folder = logged.parent / "bin"
    folder.mkdir(exist_ok=True)
    script = folder / "git"
    real = shutil.which("git")
    script.write_text(f'#!/bin/sh\necho "$*" >> {logged}\nexec {real} "$@"\n')
    script.chmod(0o755)
    logged.write_text("")
    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-c", CHECK, str(root)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def dot_git(root: Path) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in (root / ".git").rglob("*") if path.is_file()}


def test_a_new_process_reads_what_the_last_left(tmp_path: Path) -> None:
    root = repository(tmp_path / "tree")
    write(root, "src/a.py", "a = 'edited'\n")
    write(root, "src/new.py", "new\n")
    before = dot_git(root)
    logged = tmp_path / "git.log"
    first = check_in_a_new_process(root, logged)
    assert first == baseline.git_files_state(root, PATTERNS)
    assert "ls-files -z -v --stage" in logged.read_text()  # nothing left yet: the index listed
    assert list((data_home() / "run" / git_listing_file.FOLDER).iterdir())
    seeds = list((data_home() / "run" / git_status_cache.SEEDS).iterdir())
    assert [seed.name.split("-")[1] for seed in seeds] == [(index_key(root) or b"").hex()]
    write(root, "src/a.py", "a = 'edited again'\n")
    again = check_in_a_new_process(root, logged)
    assert again == baseline.git_files_state(root, PATTERNS) != first
    ran = logged.read_text()
    assert "status --porcelain=v2" in ran and "--stage" not in ran  # the listing read, not asked
    assert dot_git(root) == before  # git's own files are never written


def test_the_seed_of_an_index_that_changed_is_removed(tmp_path: Path) -> None:
    root = repository(tmp_path / "tree")
    old = index_key(root) or b""
    assert git_files_state(root, PATTERNS) == baseline.git_files_state(root, PATTERNS)
    git(root, "rm", "-q", "--cached", "README.md")
    assert git_files_state(root, PATTERNS) == baseline.git_files_state(root, PATTERNS)
    seeds = [seed.name for seed in (data_home() / "run" / git_status_cache.SEEDS).iterdir()]
    new = (index_key(root) or b"").hex()
    assert [seed.split("-")[1] for seed in seeds] == [new] and new != old.hex()


def test_a_listing_left_in_part_or_under_another_index_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path / "tree")
    write(root, "src/a.py", "a = 'edited'\n")
    git_files_state(root, PATTERNS)
    path = git_listing_file.listing_path(root, pathspecs(PATTERNS))
    key = index_key(root) or b""
    whole = path.read_bytes()
    path.write_bytes(whole[:-10])
    assert git_listing_file.read_listing(root, pathspecs(PATTERNS), key, None) is None
    path.write_bytes(whole)
    assert git_listing_file.read_listing(root, pathspecs(PATTERNS), b"\1" * 32, None) is None
    path.write_bytes(whole.replace(b"src/a.py", b"src/b.py"))  # a listing made up: it is read
    monkeypatch.setattr(git_state, "LISTINGS", IndexListings())
    monkeypatch.setattr(git_state, "PRIVATE", PrivateIndexes())
    assert git_files_state(root, PATTERNS) != baseline.git_files_state(root, PATTERNS)
    path.write_bytes(whole[:-10])  # one not whole: git lists the index again
    monkeypatch.setattr(git_state, "LISTINGS", IndexListings())
    assert git_files_state(root, PATTERNS) == baseline.git_files_state(root, PATTERNS)


def test_the_state_left_is_read_only_for_the_same_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path / "tree")
    write(root, "src/a.py", "a = 'edited'\n")
    expected = baseline.git_files_state(root, PATTERNS)
    assert git_files_state(root, PATTERNS) == expected
    path = git_listing_file.listing_path(root, pathspecs(PATTERNS))
    state = path.with_name(path.name + ".state")
    key, fingerprint, digest, _ = state.read_bytes().split(b"\n")
    assert key == (index_key(root) or b"").hex().encode() and digest.decode() == expected
    state.write_bytes(b"\n".join([key, fingerprint, b"0" * 32, b""]))  # a state made up
    monkeypatch.setattr(git_state, "LISTINGS", IndexListings())
    assert git_files_state(root, PATTERNS) == "0" * 32  # read: the same changes
    write(root, "src/a.py", "a = 'edited again'\n")
    monkeypatch.setattr(git_state, "LISTINGS", IndexListings())
    assert git_files_state(root, PATTERNS) == baseline.git_files_state(root, PATTERNS)


@pytest.mark.parametrize("marked", [1, 7, 64, 4096])
def test_a_search_between_marks_finds_what_a_search_of_the_whole_listing_finds(
    marked: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tree_splice, "MARKED_BYTES", marked)
    paths = sorted({f"d{n % 7}/f{n * 37 % 101}.py".encode() for n in range(300)})
    paths += [paths[5], paths[5], paths[-1]]  # unmerged: one record a stage
    entries = b"".join(b"H 100644 %s 0\t%s\0" % (b"0" * 40, path) for path in sorted(paths))
    listing = IndexListing(entries)
    marks = tree_splice.sampled(listing)
    assert marks[1][0] == 0 and len(marks[1]) > (1 if marked < 4096 else 0)
    asked = [b"", b"a", b"d0", b"d3/f5", b"z", *paths, *(path + b"x" for path in paths)]
    for path in asked:
        for after in (False, True):
            whole = tree_splice.offset(entries, path, after=after)
            assert tree_splice.offset(entries, path, after=after, marks=marks) == whole
            start = tree_splice.offset(entries, path)
            kept = tree_splice.offset(entries, path, after=after, lo=start)
            assert tree_splice.offset(entries, path, after=after, lo=start, marks=marks) == kept
    assert tree_splice.listed_among(listing, [b"d0/f0.py", b"nowhere", paths[7]]) == [
        path for path in [b"d0/f0.py", b"nowhere", paths[7]] if path in paths
    ]
