"""A project's identity: its canonical root, the key the store files it under, its display name.

Two folders both called `api` are two projects: the key is the folder name plus a short hash of
the canonical root (specs/store.md). `shared_key` names the same repository on every machine of a
team (its normalized `origin` URL), read from `.git` files, never by running git.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PROJECT_MARKERS = (".onlooker", "onlooker.yaml", ".git")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_REMOTE = re.compile(r'^\s*\[remote\s+"origin"\]\s*$')
_SECTION = re.compile(r"^\s*\[")
_URL = re.compile(r"^\s*url\s*=\s*(.+?)\s*$")
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")
KEY_HASH = 8
"""Hex digits of the root's hash in a key."""


@dataclass(frozen=True, slots=True)
class ProjectIdentity:
    """Who a project is: where it lives, how the store keys it, what people call it."""

    root: Path
    """The canonical root: the nearest folder at or above the working directory with a project
    marker (.onlooker, onlooker.yaml, .git, a worktree's or submodule's `.git` file included),
    symlinks resolved; else the working directory itself."""
    key: str
    """What the store files the project under (rows, journal folder): `<name>-<hash of root>`."""
    name: str
    """The display name: the root folder's name."""

    @property
    def shared_key(self) -> str | None:
        """The same on every clone of the repository: `host/path` of its `origin` remote (plus
        the folder inside the repository when the root is below the git root); None without a
        git remote."""
        return shared_key(self.root)


def project_root(cwd: str | os.PathLike[str]) -> Path:
    """The nearest folder at or above `cwd` with a project marker, else `cwd`; symlinks resolved."""
    start = Path(os.fspath(cwd) or ".").expanduser().resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return start


def project_identity(cwd: str | os.PathLike[str]) -> ProjectIdentity:
    """The identity of the project `cwd` belongs to."""
    return identity_of(project_root(cwd))


def identity_of(root: Path) -> ProjectIdentity:
    """The identity of the project whose canonical root is `root`."""
    name = root.name or "root"
    digest = hashlib.blake2b(str(root).encode(), digest_size=KEY_HASH // 2).hexdigest()
    stem = _UNSAFE.sub("-", name).strip(".-")[:60] or "project"
    return ProjectIdentity(root, f"{stem}-{digest}", name)


def shared_key(root: Path) -> str | None:
    """`host/owner/repo` of the `origin` remote of the repository holding `root` (None when there
    is none); `#sub/folder` is added when `root` lies below the repository's top."""
    for folder in (root, *root.parents):
        marker = folder / ".git"
        if marker.exists():
            url = _origin_url(_git_dir(marker))
            if url is None:
                return None
            inside = root.relative_to(folder).as_posix()
            return url if inside == "." else f"{url}#{inside}"
    return None


def normalized_remote(url: str) -> str:
    """`git@github.com:Org/Repo.git` or `https://user@github.com/org/repo` -> `github.com/org/repo`
    (host and path, lower case, no `.git`)."""
    text = url.strip()
    if "://" in text:
        text = text.split("://", 1)[1]
        text = text.split("@", 1)[-1] if "@" in text.split("/", 1)[0] else text
        host, _, path = text.partition("/")
        host = host.split(":", 1)[0]
    else:
        found = _SCP.match(text)
        host, path = (found.group(1), found.group(2)) if found else ("", text)
    path = path.strip("/")
    path = path[:-4] if path.endswith(".git") else path
    return f"{host.lower()}/{path.lower()}" if host else path.lower()


def _git_dir(marker: Path) -> Path:
    """The git directory a `.git` marker names: itself, or a worktree's or submodule's `gitdir:`
    (then its `commondir`, where a worktree's config lives)."""
    if marker.is_dir():
        return marker
    try:
        text = marker.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return marker
    if not text.startswith("gitdir:"):
        return marker
    found = Path(text[len("gitdir:") :].strip())
    found = found if found.is_absolute() else (marker.parent / found)
    try:
        common = (found / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return found
    return (found / common).resolve() if common else found


def _origin_url(git_dir: Path) -> str | None:
    try:
        lines = (git_dir / "config").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    inside = False
    for line in lines:
        if _SECTION.match(line):
            inside = bool(_REMOTE.match(line))
            continue
        found = _URL.match(line) if inside else None
        if found:
            return normalized_remote(found.group(1).strip('"'))
    return None


_KEYED = re.compile(rf"^(.+)-[0-9a-f]{{{KEY_HASH}}}$")


def display_name(key: str) -> str:
    """The name to show for a store key: the folder name of `<name>-<hash>`; a key from before
    project identities (a bare folder name) is its own name."""
    found = _KEYED.match(key)
    return found.group(1) if found else key


def matching_keys(known: Iterable[str], name: str) -> list[str]:
    """The keys of `known` that `name` designates: itself when it is a key, else every key whose
    display name it is (more than one: the name is ambiguous)."""
    keys = sorted(set(known))
    if name in keys:
        return [name]
    return [key for key in keys if display_name(key) == name]
