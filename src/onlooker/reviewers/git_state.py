"""The watched files' state in a git work tree, from what git already knows (specs/engine.md).

Git lists the index entries the patterns match (mode, object id, path), which entries it finds
modified or deleted (its stat cache, and the content where the stat cannot tell) and the
untracked files the `.gitignore` files do not ignore. The index listing is kept while the index
file is unchanged, in the process (`git_index.py`) and for the next ones in the data home
(`git_listing_file.py`); what changed in the work tree comes from `git status` over a private copy
of the index, where git keeps its untracked cache (`git_status_cache.py`), with `git ls-files`
judging the entries it does not look at (`git_verdicts.py`). The state is that of the tree `git
add -A` would record for the matched paths (`tree_splice.py`): it changes when a matched file is
added, deleted, renamed or its content changes, and not when a file is only touched, staged or
committed.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path

from ..text.ignore import IGNORE_FILE
from .file_walk import fixed_prefixes, path_matcher
from .git_index import LISTINGS, Command, IndexListing, index_file, index_key, run_together
from .git_listing_file import read_listing, write_listing, write_state
from .git_status_cache import (
    PRIVATE,
    StatusRead,
    excludes_elsewhere,
    read_status,
    status_command,
    untracked_below,
)
from .git_verdicts import CANDIDATES, candidates, status_sources, verdicts
from .tree_splice import listed_among, record_path, records, spliced_state

SKIPPED_PARTS = (".hg", ".svn")
"""Other tools' folders the file walk skips too (git never lists `.git`)."""
_SUBMODULE_PATH = re.compile(r"^\s*path\s*=(.*)$", re.MULTILINE)
_LEFT_OUT = tuple(f":(exclude,glob)**/{part}/**" for part in SKIPPED_PARTS)
_LISTING = ["ls-files", "-z", "-v", "--stage"]
"""The index entries, tagged as `git ls-files -t` tags them (lower case: assume-unchanged)."""
_NOTHING = "d41d8cd98f00b204e9800998ecf8427e"
"""MD5 of no bytes: the state when no pattern can match a file."""


def git_files_state(root: Path, patterns: Sequence[str]) -> str | None:
    """MD5 of the watched files' entries (mode, object id, path) in path order; None when `root`
    is not the top of a git work tree or git cannot answer, so the caller walks instead."""
    git = shutil.which("git")
    if git is None or not (root / ".git").exists():
        return None
    specs = pathspecs(patterns)
    if not specs:
        return _NOTHING
    listed = _listed(git, root, specs, sorted(set(fixed_prefixes(patterns))))
    if listed is None:
        return None
    listing, changed, untracked = listed
    matches = path_matcher(patterns)
    added = [path for path in untracked if not path.endswith("/") and matches(path)]
    skipped = {path for path in untracked if path.endswith("/")} | _repositories_above(
        root, patterns
    )
    submodules = _submodules(root)  # walked too, as the walk goes into them
    if not (changed or added or skipped or submodules):
        return listing.digest  # the common case
    skipped |= {f"{path}/" for path in submodules}
    deleted = {path for tag, path in changed if tag == b"R"} | set(map(os.fsencode, submodules))
    modified = {path for tag, path in changed if tag == b"C"} - deleted
    found = listing.last_state
    state = spliced_state(root, listing, deleted, modified, added, sorted(skipped), patterns)
    if listing.last_state != found:
        write_state(listing)
    return state


def _listed(
    git: str, root: Path, specs: list[str], prefixes: list[str]
) -> tuple[IndexListing, list[tuple[bytes, bytes]], list[str]] | None:
    """(the index records the `specs` match, the (tag, path) of those git finds modified (`C`) or
    deleted (`R`), the untracked paths below the `prefixes`); None when git cannot answer.

    The listing is the one kept under the index's checksum, in this process or in the data home
    (`git_listing_file.py`), else `git ls-files --stage` lists it beside the `git status` over a
    private copy of the index that finds what changed (`git_status_cache.py`); where that copy
    cannot answer, `git diff-files` and `git ls-files --others` at once, or with no listing the
    two `git ls-files` as before. Git's verdicts on what they name come from `git_verdicts.py`."""
    key, index = index_key(root), index_file(root)
    git_dir = None if index is None else index.parent
    others = ["ls-files", "-z", "--others", f"--exclude-per-directory={IGNORE_FILE}"]
    untracked_listing: Command = [*others, "--", *untracked_pathspecs(prefixes)]
    if key is None:
        return _listed_whole(git, root, specs, key, git_dir, untracked_listing)
    listing = LISTINGS.get(root, specs, key)
    if listing is None and (listing := read_listing(root, specs, key, git_dir)) is not None:
        LISTINGS.keep(root, specs, key, listing)
    copy = None
    if index is not None and not excludes_elsewhere(git_dir):
        copy = PRIVATE.copy(root, index, key)
    if copy is not None and index is not None:
        listed: list[Command] = [] if listing else [[*_LISTING, "--", *specs]]
        outputs = _outputs(git, root, key, [status_command(copy), *listed])
        if outputs is not None and listing is None:
            listing = _kept(root, specs, key, IndexListing(outputs[1], git_dir))
        read = None if outputs is None else _settled(git, root, key, index, outputs[0])
        if read is not None and listing is not None:
            untracked = untracked_below(git, root, read.untracked, read.changed, prefixes)
            if untracked is not None:
                PRIVATE.share(root)
                return _judged(git, root, specs, listing, read.unmerged, untracked, read.judged)
    if listing is None:
        return _listed_whole(git, root, specs, key, git_dir, untracked_listing)
    outputs = _outputs(git, root, key, [CANDIDATES, untracked_listing])
    if outputs is None:
        return _listed_whole(git, root, specs, index_key(root), git_dir, untracked_listing)
    named, untracked_output = outputs
    untracked = [os.fsdecode(path) for path in records(untracked_output)]
    return _judged(git, root, specs, listing, records(named), untracked)


def _settled(git: str, root: Path, key: bytes, index: Path, output: bytes) -> StatusRead | None:
    """What `git status` over the copy of `index` said (`output`); when it judged the copy's
    entries under other attributes or config than now, what it says over a copy taken afresh
    from the index; None when git cannot answer."""
    for _ in range(2):
        read = read_status(output)
        named = [] if read is None else [*read.changed, *map(os.fsencode, read.untracked)]
        if read is None or PRIVATE.settled(root, status_sources(root, index.parent, named)):
            return read
        copy = PRIVATE.copy(root, index, key, fresh=True)
        outputs = None if copy is None else _outputs(git, root, key, [status_command(copy)])
        if outputs is None:
            return None
        output = outputs[0]
    return None


def _kept(root: Path, specs: list[str], key: bytes, listing: IndexListing) -> IndexListing:
    """`listing`, read under the index checksum `key`, kept in this process and for the next."""
    LISTINGS.keep(root, specs, key, listing)
    write_listing(root, specs, key, listing)
    return listing


def _outputs(git: str, root: Path, key: bytes, commands: list[Command]) -> list[bytes] | None:
    """The `commands`' outputs; None when git fails or the index changed while it looked."""
    outputs = run_together(git, root, commands)
    return outputs if outputs is not None and index_key(root) == key else None


def _listed_whole(
    git: str,
    root: Path,
    specs: list[str],
    key: bytes | None,
    git_dir: Path | None,
    untracked_listing: Command,
) -> tuple[IndexListing, list[tuple[bytes, bytes]], list[str]] | None:
    """The index listing with git's verdict on every entry, and the untracked files: two `git
    ls-files` at once; the listing is kept when the index did not change meanwhile."""
    judged = ["ls-files", "-z", "-v", "--stage", "--cached", "--modified", "--deleted"]
    outputs = run_together(git, root, [[*judged, "--", *specs], untracked_listing])
    if outputs is None:
        return None
    entries, changed = _split(outputs[0])
    listing = IndexListing(entries, git_dir)
    if key is not None and index_key(root) == key:
        _kept(root, specs, key, listing)
    return listing, changed, [os.fsdecode(path) for path in records(outputs[1])]


def _split(output: bytes) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """The index records of a `git ls-files -v --stage --cached --modified --deleted` output, and
    the (tag, path) of the entries it marks modified (`C`) or deleted (`R`; lower case when the
    entry is marked assume-unchanged): found by searching, the records between them kept whole."""
    data = b"\0" + output
    spans: list[tuple[int, int]] = []
    changed: list[tuple[bytes, bytes]] = []
    for tag in (b"C", b"R", b"c", b"r"):
        needle = b"\0" + tag + b" "
        at = data.find(needle)
        while at != -1:
            end = data.index(b"\0", at + 1)
            spans.append((at, end))
            changed.append((tag.upper(), record_path(data[at + 1 : end])))
            at = data.find(needle, end)
    if not spans:
        return output, []
    kept, done = [], 0
    for start, end in sorted(spans):
        kept.append(data[done:start])
        done = end
    kept.append(data[done:])
    return b"".join(kept)[1:], changed


def _judged(
    git: str,
    root: Path,
    specs: list[str],
    listing: IndexListing,
    named: list[bytes],
    untracked: list[str],
    known: Sequence[tuple[bytes, bytes]] = (),
) -> tuple[IndexListing, list[tuple[bytes, bytes]], list[str]] | None:
    """The listing, git's verdicts on the listed entries it found changed and the untracked
    paths: `git ls-files` judges the `named` entries (and those `candidates` adds), `git
    status` judged the rest (its `known` verdicts: it compares as `git ls-files --modified
    --deleted` does, `ie_modified`)."""
    asked = candidates(listing, named)
    changed = verdicts(git, root, listing, asked, specs)
    if changed is None:
        return None
    if known:
        listed = set(listed_among(listing, [path for _, path in known])) - set(asked)
        changed += [(tag, path) for tag, path in known if path in listed]
    return listing, changed, untracked


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


def untracked_pathspecs(prefixes: Sequence[str]) -> list[str]:
    """The patterns' fixed folders (`prefixes`), literally: untracked files are matched here, as
    the walk matches them, and git lists a repository within only when no glob narrows the
    listing."""
    if "" in prefixes:
        return [".", *_LEFT_OUT]
    return [*(f":(literal){prefix}" for prefix in prefixes), *_LEFT_OUT]
