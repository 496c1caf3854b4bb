"""Reading and writing a user's file so that it is never torn and never silently re-encoded.

A write goes to a temporary file in the same folder, is flushed to disk, replaces the file in one
`os.replace`, and the folder is flushed so the rename survives a power cut. A reader sees the old
file or the new one, never a part of either.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ImprovementError

BOM = "\ufeff"
TEMPORARY_SUFFIX = ".onlooker-tmp"
ABSENT = "absent"
"""The digest given to a file that does not exist."""


@dataclass(frozen=True, slots=True)
class Text:
    """A file's text, with the byte order mark it had (kept when written back)."""

    text: str
    bom: bool = False

    def encode(self) -> bytes:
        return ((BOM if self.bom else "") + self.text).encode("utf-8")


def digest(data: bytes | None) -> str:
    """sha256 of the bytes, `absent` for a file that does not exist."""
    return ABSENT if data is None else hashlib.sha256(data).hexdigest()


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, None when it does not exist."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ImprovementError(f"{path}: is a folder, not a file") from None
    except OSError as error:
        raise ImprovementError(f"{path}: cannot be read: {error.strerror}") from None


def decode(path: Path, data: bytes | None) -> Text:
    """The file's text; refuses (ImprovementError) bytes that are not UTF-8."""
    if data is None:
        return Text("")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ImprovementError(
            f"{path}: not UTF-8 text (byte {error.start} cannot be decoded); onlooker edits "
            "UTF-8 files only and left this one unchanged"
        ) from None
    if text.startswith(BOM):
        return Text(text[1:], bom=True)
    return Text(text)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace `path` with `data` in one step: temp file, fsync, os.replace, fsync the folder.
    A new file gets the usual permissions; an existing one keeps its own."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMPORARY_SUFFIX, dir=folder)
    temporary = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    fsync_folder(folder)


def remove(path: Path) -> None:
    """Delete `path` (a rollback to before the file existed) and flush its folder."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fsync_folder(path.parent)


def fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename or create in it) to disk."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def keep_out_of_git(folder: Path) -> None:
    """Give a folder of local state (backups, locks) a `.gitignore` of `*`, once."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError), open(ignore, "x", encoding="utf-8") as handle:
            handle.write("# local state of onlooker: backups and locks\n*\n")


def remove_leftovers(path: Path) -> int:
    """Delete temporary files a killed writer of `path` left beside it; call under the lock,
    when no live writer can own one. Returns how many went."""
    removed = 0
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(path.parent):
            if entry.name.startswith(f".{path.name}.") and entry.name.endswith(TEMPORARY_SUFFIX):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed += 1
    return removed


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process umask, read without changing it (os.umask would, for every thread)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022
