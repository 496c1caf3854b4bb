"""Which index entries git finds modified or deleted in the work tree (specs/engine.md).

`git status` (`git_status_cache.py`) gives its verdict on the entries it names, as `git ls-files
--modified --deleted` would; it does not look at submodule entries nor at those marked
assume-unchanged, and names unmerged paths without a verdict per entry. Those, and on the way
without the index copy every entry `git diff-files` names (its stat differs: a file only touched
is one), are the candidates `git ls-files --modified --deleted` judges alone, as it judged every
entry before (it compares the content where the stat cannot tell). Its verdicts are kept with the
index listing and reused while the candidates' stats, the index and the files that could change a
verdict (git's config and attributes files) are all unchanged, and were already settled when
git was asked (a change within the same clock tick would not show in a stat).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

from .git_index import IndexListing, run_together
from .tree_splice import listed_among

SETTLED_NS = 2_000_000_000
"""A candidate's stat is trusted to show its next change once it is this old (ns) when asked."""
ASKED_BY_NAME = 1_000
"""Up to this many candidates are named to `git ls-files`; more, and it judges every entry."""
CANDIDATES = ["-c", "core.preloadIndex=true", "diff-files", "-z", "--name-only"]
CANDIDATES += ["--ignore-submodules=dirty"]  # a submodule's own commit, as ls-files compares it
_GITLINK = re.compile(rb"(?:^|\0)[A-Za-z] 160000 [0-9a-f]+ \d\t([^\0]*)")
_GITLINK_RECORD = re.compile(rb"\0[A-Za-z] 160000 ")
"""A submodule's record past the first: searched for first (a search for NUL runs at memchr's
speed, the pattern above does not)."""

Stat = tuple[int, int, int, int, int] | None


def candidates(listing: IndexListing, named: list[bytes]) -> list[bytes]:
    """The listed entries git named without a verdict (`git diff-files`; `git status`'s unmerged
    paths), and the submodule entries and those marked assume-unchanged (neither looks for their
    removal; ls-files does): always judged."""
    return sorted({*listed_among(listing, named), *gitlinks(listing), *listing.assumed})


def gitlinks(listing: IndexListing) -> tuple[bytes, ...]:
    """The paths of the listing's submodule entries (looked for once a listing)."""
    if listing.gitlinks is None:
        records = listing.records
        held = records.startswith(b" 160000 ", 1) or _GITLINK_RECORD.search(records) is not None
        listing.gitlinks = tuple(_GITLINK.findall(records) if held else [])
    return listing.gitlinks


def verdicts(
    git: str, root: Path, listing: IndexListing, found: Sequence[bytes], specs: Sequence[str]
) -> list[tuple[bytes, bytes]] | None:
    """The (tag, path) `git ls-files -t --modified --deleted` gives for the `found` candidates
    (`C` modified, `R` deleted); None when git cannot answer."""
    if not found:
        return []
    asked_at = time.time_ns()
    sources = _verdict_sources(root, listing.git_dir, found)
    stats = tuple(_stat(root / os.fsdecode(path)) for path in found)
    key = (tuple(found), stats, sources)
    last = listing.last_verdicts
    if last is not None and last[0] == key:
        return last[1]
    named = [f":(literal){os.fsdecode(path)}" for path in found]
    asked = named if len(found) <= ASKED_BY_NAME else list(specs)
    judge = ["ls-files", "-z", "-t", "--modified", "--deleted", "--", *asked]
    outputs = run_together(git, root, [judge])
    if outputs is None:
        return None
    wanted = set(found)
    judged = []
    for record in outputs[0].split(b"\0")[:-1]:
        tag, path = record[:1], record[2:]
        if tag in (b"C", b"R") and path in wanted:
            judged.append((tag, path))
    if all(stat is None or max(stat[3], stat[4]) < asked_at - SETTLED_NS for stat in stats):
        listing.last_verdicts = (key, judged)
    return judged


def _stat(path: Path) -> Stat:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_mode, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _verdict_sources(root: Path, git_dir: Path | None, found: Sequence[bytes]) -> tuple[Stat, ...]:
    """The stats of the files whose content could change a verdict: git's config files, and the
    attributes files (filters, line endings) git reads for the candidates."""
    paths = _config_files(git_dir)
    folders = {os.path.dirname(os.fsdecode(path)) for path in found}
    for folder in sorted(folders):
        while True:
            paths.append(root / folder / ".gitattributes")
            if not folder:
                break
            folder = os.path.dirname(folder)
    return tuple(_stat(path) for path in dict.fromkeys(paths))


def status_sources(root: Path, git_dir: Path | None, named: Sequence[bytes]) -> str:
    """A fingerprint of what `git status` over the index copy judged under: git's config files
    and the attributes files it could have read, which are the top's `.gitattributes` and those
    it `named` (changed or untracked; one unchanged is as in the index). An entry whose stat it
    refreshed in the copy was judged under them: when they change, the copy is taken again."""
    paths = [*_config_files(git_dir), root / ".gitattributes"]
    attributes = [path for path in named if path.rpartition(b"/")[2] == b".gitattributes"]
    paths += [root / os.fsdecode(path) for path in sorted(attributes)]
    stats = repr(tuple(_stat(path) for path in dict.fromkeys(paths)))
    return hashlib.sha256(stats.encode()).hexdigest()[:16]


def _config_files(git_dir: Path | None) -> list[Path]:
    """Git's config files, and the attributes files outside the work tree."""
    paths = [Path("/etc/gitconfig")]
    try:
        home = Path.home()
    except (RuntimeError, KeyError):  # no home: git reads no global files either
        home = None
    config_home = os.environ.get("XDG_CONFIG_HOME") or (home and home / ".config")
    if home is not None:
        paths.append(home / ".gitconfig")
    if config_home:
        paths += [Path(config_home) / "git" / "config", Path(config_home) / "git" / "attributes"]
    if git_dir is not None:
        paths += [git_dir / "config", git_dir / "info" / "attributes", git_dir / "commondir"]
        common = _common_dir(git_dir)
        if common is not None:
            paths += [common / "config", common / "info" / "attributes"]
    return paths


def _common_dir(git_dir: Path) -> Path | None:
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return git_dir / text
