"""A session's archive folder: the only place side effects write (specs/side-effects.md).

`<archive>/<project>/<session>/`: `files/` (work products, project paths kept), `search_results/`,
`workbench_activity/`, `media/`. Every write goes through here: the target is resolved and must stay
inside the session's folder, a file is written whole (temporary name, then renamed), a copy is
taken only from a regular file inside the project (its real path checked, symlinks resolved), and
content already there under the same name is not written again (compared by SHA-256).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import SideEffectError
from ..store.home import safe_name
from ._rules import Limits

KEYS = ".keys"
"""Markers of side effects done (or under way), each naming its holder: a replayed call finds its
key and does nothing; a claim whose holder died is taken over."""


@dataclass(frozen=True, slots=True)
class Written:
    """One file a side effect wrote (or found already there, `unchanged`)."""

    path: str
    """Relative to the session's archive."""
    sha256: str
    size: int
    source: str = ""
    note: str = ""


class Archive:
    """One session's archive folder."""

    def __init__(self, root: Path, project: str, session_id: str, limits: Limits) -> None:
        self.base = root
        self.folder = root / safe_name(project or "default") / safe_name(session_id or "_none")
        self.limits = limits

    # -- replay keys -------------------------------------------------------------------------------

    def claim(self, key: str, holder: str = "", stale: Callable[[str], bool] | None = None) -> bool:
        """Take `key` for this run, its marker naming `holder` (who runs it); False when it is
        taken (done, or under way). A marker whose holder `stale` judges gone (a worker killed
        mid-action) is taken over. Claims of one archive are made one at a time (a lock file)."""
        marker = self._marker(key)
        marker.parent.mkdir(parents=True, exist_ok=True)
        with self._keys_locked():
            try:
                fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                if stale is None or not stale(_holder_of(marker)):
                    return False
                fd = os.open(marker, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
            try:
                os.write(fd, f"{key}\n{holder}".encode("utf-8", "replace"))
            finally:
                os.close(fd)
        return True

    def _keys_locked(self) -> contextlib.AbstractContextManager[None]:
        return self._locked(".lock")

    @contextmanager
    def _locked(self, name: str) -> Iterator[None]:
        fd = os.open(self.folder / KEYS / name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def release(self, key: str) -> None:
        """Give `key` back after a failed run, so a retry does the work."""
        self._marker(key).unlink(missing_ok=True)

    def _marker(self, key: str) -> Path:
        return self.folder / KEYS / hashlib.sha256(key.encode()).hexdigest()[:32]

    # -- writes -----------------------------------------------------------------------------------

    def inside(self, relative: str) -> Path:
        """The archive path for `relative`; SideEffectError when it would leave the folder."""
        parts = Path(relative).parts
        if not relative or Path(relative).is_absolute() or ".." in parts or parts[0] == KEYS:
            raise SideEffectError(f"{relative!r} is not a path inside a session's archive")
        target = self.folder / relative
        real = Path(os.path.realpath(target.parent))
        if real != Path(os.path.realpath(self.folder)) and not _under(
            real, Path(os.path.realpath(self.folder))
        ):
            raise SideEffectError(f"{relative!r} leads out of the session's archive")
        return target

    def write_text(self, relative: str, text: str, *, source: str = "") -> Written:
        """Write a text file (whole) into the archive; unchanged content is not written again."""
        return self._write(relative, text.encode("utf-8", "replace"), source=source)

    def append_text(
        self, relative: str, text: str, *, place: Callable[[str], int] | None = None
    ) -> Written:
        """Append to a log in the archive, rolling it over to `<stem>.1<suffix>` past the log
        limit (so it keeps at most twice the limit). With `place`, the log is kept in an order:
        `place(log text)` gives the offset the text goes in at (its length: the end). Writes to
        one log are made one at a time (a lock file beside the keys)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self.inside(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8", "replace")[: self.limits.max_log_bytes]
        (self.folder / KEYS).mkdir(exist_ok=True)
        with self._locked(f".log.{hashlib.sha256(relative.encode()).hexdigest()[:16]}.lock"):
            if target.exists() and target.stat().st_size + len(data) > self.limits.max_log_bytes:
                target.replace(target.with_name(f"{target.stem}.1{target.suffix}"))
            current = ""
            if place is not None and target.is_file():
                current = target.read_bytes().decode("utf-8", "replace")
            at = place(current) if place else 0
            if place is None or at >= len(current):
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
                try:
                    os.write(fd, data)
                finally:
                    os.close(fd)
            else:
                whole = current[:at].encode() + data + current[at:].encode()
                temporary = target.with_name(f".{target.name}.{os.getpid()}.writing")
                temporary.write_bytes(whole)
                temporary.replace(target)
        return Written(relative, hashlib.sha256(data).hexdigest(), len(data))

    def copy(self, source: Path, relative: str, project_root: Path) -> Written:
        """Copy a project file into the archive. The source's real path must be a regular file
        inside the project's real path, within the size limit."""
        real_root = Path(os.path.realpath(project_root))
        real = Path(os.path.realpath(source))
        if not _under(real, real_root):
            raise SideEffectError(f"{source} is outside the project {project_root}; not copied")
        if not real.is_file():
            raise SideEffectError(f"{source} is not a regular file; not copied")
        size = real.stat().st_size
        if size > self.limits.max_file_bytes:
            return Written("", "", size, str(source), f"over {self.limits.max_file_bytes} bytes")
        return self._write(relative, real.read_bytes(), source=str(source))

    def _write(self, relative: str, data: bytes, *, source: str) -> Written:
        digest = hashlib.sha256(data).hexdigest()
        target = self.inside(relative)
        if target.is_file() and _sha256(target) == digest:
            return Written(relative, digest, len(data), source, "unchanged")
        if self.size() + len(data) > self.limits.max_archive_bytes:
            return Written("", digest, len(data), source, "the session's archive is full")
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_file():  # an earlier version: kept beside it under its hash
            earlier = target.with_name(f"{target.stem}.{_sha256(target)[:8]}{target.suffix}")
            if not earlier.exists():
                shutil.copyfile(target, earlier)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.writing")
        temporary.write_bytes(data)
        temporary.replace(target)
        return Written(relative, digest, len(data), source)

    def size(self) -> int:
        """Bytes in the session's archive."""
        if not self.folder.is_dir():
            return 0
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())


def _holder_of(marker: Path) -> str:
    """The holder a key's marker names ('' for a marker that names none)."""
    try:
        text = marker.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text.partition("\n")[2]


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
