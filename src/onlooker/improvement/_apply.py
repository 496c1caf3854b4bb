"""Apply instruction lines to a target's managed section, roll back, list the history.

Every write: take the file's lock, read the file under it, back the file up, note the change as
pending in the backup index, replace the file atomically, commit the index, prune old backups.
See specs/improvement.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..core.clock import Clock, SystemClock
from ..errors import EditedByHand, ImprovementError, NothingToRollBack
from ._backups import BackupFolder, BackupIndex
from ._change import AppliedChange, change_record, from_record
from ._files import (
    Text,
    decode,
    digest,
    keep_out_of_git,
    read_bytes,
    remove,
    remove_leftovers,
    write_atomically,
)
from ._jsonc import StringSpan, find_string, replace_string
from ._lock import STALE_AFTER, TIMEOUT, FileLock
from ._section import (
    MANAGED_BY,
    SECTION,
    clean_lines,
    find_section,
    inject,
    remove_lines,
    section_lines,
    split_lines,
)
from ._target import STATE_DIR, InstructionTarget

BACKUP_MAX_VERSIONS = 20
_REASON_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


@dataclass(frozen=True, slots=True)
class LockSettings:
    """How long a lock may sit before it is taken over, and how long a writer waits."""

    stale_after: float = STALE_AFTER
    timeout: float = TIMEOUT


def apply_instructions(
    target: InstructionTarget,
    lines: list[str],
    *,
    section: str = SECTION,
    backup_max_versions: int = BACKUP_MAX_VERSIONS,
    managed_by: str = MANAGED_BY,
    replace: bool = False,
    reason: str = "pre-improvement",
    lock: LockSettings = LockSettings(),
    clock: Clock | None = None,
) -> AppliedChange:
    """Add `lines` to the target's `## section` (with `replace`, make them its only lines).
    Lines already in the section are not added twice; when nothing would change, nothing is
    written or backed up (the result's `changed` is False)."""
    wanted = clean_lines(lines)

    def edit(text: str) -> tuple[str, tuple[str, ...]]:
        new = inject(text, section, wanted, managed_by=managed_by, replace=replace)
        return new, tuple(wanted if replace else added_lines(text, section, wanted))

    return apply_edit(target, edit, section=section, backup_max_versions=backup_max_versions,
                      reason=reason, lock=lock, clock=clock)  # fmt: skip


def apply_edit(
    target: InstructionTarget,
    edit: Callable[[str], tuple[str, tuple[str, ...]]],
    *,
    section: str,
    backup_max_versions: int = BACKUP_MAX_VERSIONS,
    reason: str = "pre-improvement",
    lock: LockSettings = LockSettings(),
    clock: Clock | None = None,
) -> AppliedChange:
    """One locked, backed-up, atomic change: `edit` gets the text an agent reads and gives the
    new text and the lines it added (`section` '' for an edit outside a managed section). When
    the text stays the same nothing is written or backed up."""
    _check_max_versions(backup_max_versions)
    when = (clock or SystemClock()).now()
    with _locked(target, lock) as held:
        folder = BackupFolder(target.backups)
        data = read_bytes(target.path)
        index = folder.load(digest(data))
        document = _document(target, data)
        new_text, added = edit(document.editable)
        if new_text == document.editable:
            return AppliedChange(
                target.path, None, digest(data), digest(data), when, target.label,
                sequence=index.counter, section=section,
            )  # fmt: skip
        new_data = document.with_editable(new_text)
        name = folder.write(index, data or b"", when, _slug(reason), target.path.suffix)
        change = AppliedChange(
            target.path, folder.folder / name, digest(data), digest(new_data), when,
            target.label, "apply", index.counter, added, 0, section,
        )  # fmt: skip
        stack = [*index.stack, {"backup": name, "existed": data is not None}]
        _commit(folder, index, held, stack, change, backup_max_versions,
                lambda: write_atomically(target.path, new_data))  # fmt: skip
        return change


def rollback(
    target: InstructionTarget,
    steps: int = 1,
    *,
    backup_max_versions: int = BACKUP_MAX_VERSIONS,
    lock: LockSettings = LockSettings(),
    clock: Clock | None = None,
    section: str = SECTION,
    force: bool = False,
) -> AppliedChange:
    """Put the file back as it was `steps` applies ago (byte for byte), after backing up what
    it holds now. Each rollback walks further back; NothingToRollBack past the oldest kept.

    A file edited by hand since onlooker's last change keeps the edit: only the lines those
    applies added are taken out of the section (a three-way undo). When one of them is no longer
    as written, the rollback is refused (EditedByHand says how to go on); `force` puts the kept
    version back all the same (what the file holds is backed up first, as always)."""
    if steps < 1:
        raise ImprovementError(f"steps: 1 or more, not {steps}")
    _check_max_versions(backup_max_versions)
    when = (clock or SystemClock()).now()
    with _locked(target, lock) as held:
        folder = BackupFolder(target.backups)
        data = read_bytes(target.path)
        index = folder.load(digest(data))
        if len(index.stack) < steps:
            raise NothingToRollBack(
                f"{target.path}: {len(index.stack)} earlier version(s) kept in "
                f"{target.backups}, cannot roll back {steps}"
            )
        entry = index.stack[-steps]
        if force or not _edited_since(index, data):
            restored = _restored(target, data, folder, entry)
        else:
            restored = _undone_in_place(target, data, folder, index, steps, section)
        name = folder.write(index, data or b"", when, "pre-rollback", target.path.suffix)
        change = AppliedChange(
            target.path, folder.folder / name, digest(data), digest(restored), when,
            target.label, "rollback", index.counter, (), steps,
        )  # fmt: skip

        def write() -> None:
            if restored is None:
                remove(target.path)
            else:
                write_atomically(target.path, restored)

        _commit(folder, index, held, index.stack[:-steps], change, backup_max_versions, write)
        return change


def history(target: InstructionTarget) -> list[AppliedChange]:
    """The changes whose backups are still kept, oldest first. Reads without the lock."""
    folder = BackupFolder(target.backups)
    index = folder.load(digest(read_bytes(target.path)))
    return [from_record(record, target.path, folder.folder) for record in index.changes]


def rollback_depth(target: InstructionTarget) -> int:
    """How many times `rollback` can walk back from the current version."""
    folder = BackupFolder(target.backups)
    return len(folder.load(digest(read_bytes(target.path))).stack)


def current_text(target: InstructionTarget) -> str:
    """The target's text as an agent reads it (an inline prompt's string, not the JSON file);
    empty when the file does not exist."""
    return _document(target, read_bytes(target.path)).editable


def managed_lines(target: InstructionTarget, section: str = SECTION) -> list[str]:
    """The instruction lines the target's managed section holds now."""
    return section_lines(current_text(target), section)


@dataclass(frozen=True, slots=True)
class _Document:
    """The file's text and the part of it an improvement edits."""

    path: Path
    text: Text
    span: StringSpan | None

    @property
    def editable(self) -> str:
        return self.text.text if self.span is None else self.span.value

    def with_editable(self, new: str) -> bytes:
        if self.span is None:
            return Text(new, self.text.bom).encode()
        return Text(replace_string(self.text.text, self.span, new), self.text.bom).encode()


def _document(target: InstructionTarget, data: bytes | None) -> _Document:
    text = decode(target.path, data)
    if target.json_path is None:
        return _Document(target.path, text, None)
    span = _json_span(target, text.text, data is None)
    return _Document(target.path, text, span)


def _json_span(target: InstructionTarget, text: str, missing: bool) -> StringSpan:
    where = ".".join(target.json_path or ())
    if missing:
        raise ImprovementError(f"{target.path}: no longer exists, so {where} cannot be changed")
    span = find_string(text, target.json_path or (), target.path)
    if span is None:
        raise ImprovementError(f"{target.path}: {where} is no longer a string prompt")
    return span


def _restored(
    target: InstructionTarget, data: bytes | None, folder: BackupFolder, entry: dict[str, object]
) -> bytes | None:
    """The file's bytes once the version in `entry` is put back (None: no file)."""
    if not entry.get("existed", True):
        if target.json_path is not None:
            raise ImprovementError(f"{target.path}: the kept version has no prompt to restore")
        return None
    kept = folder.read(str(entry["backup"]))
    if target.json_path is None:
        return kept
    old = decode(folder.folder / str(entry["backup"]), kept).text
    old_span = _json_span(target, old, False)
    now = _document(target, data)
    assert now.span is not None
    literal = old[old_span.start : old_span.end]
    text = now.text.text
    return Text(text[: now.span.start] + literal + text[now.span.end :], now.text.bom).encode()


def _edited_since(index: BackupIndex, data: bytes | None) -> bool:
    """The file no longer holds what onlooker's last change left in it."""
    return bool(index.changes) and index.changes[-1].get("after_sha") != digest(data)


def _undone_in_place(
    target: InstructionTarget, data: bytes | None, folder: BackupFolder, index: BackupIndex,
    steps: int, section: str,
) -> bytes | None:  # fmt: skip
    """The file as it is now, without the lines the last `steps` applies added: a hand edit
    made since stays. EditedByHand when a line is no longer there as written."""
    backups = {str(entry["backup"]) for entry in index.stack[-steps:]}
    applies = [
        c for c in index.changes if c.get("backup") in backups and c.get("action") == "apply"
    ]
    outside = any(not c.get("section") for c in applies)  # a description: no section lines
    gone = [str(line) for change in applies for line in change.get("lines", ())]
    document = _document(target, data)
    held = section_lines(document.editable, section)
    missing = [line for line in gone if line not in held]
    if len(applies) < len(backups) or missing or outside:
        what = f" ({'; '.join(missing)})" if missing else ""
        raise EditedByHand(
            f"{target.path}: edited by hand since onlooker's last change, and the lines this "
            f"rollback would take out are no longer as onlooker wrote them{what}. Nothing was "
            f"changed. Edit the section `## {section}` by hand, or roll back with --force to "
            f"put back the kept version (what the file holds now is backed up first in "
            f"{target.backups})."
        )
    entry = index.stack[-steps]
    kept = folder.read(str(entry["backup"])) if entry.get("existed", True) else None
    kept_text = _document(target, kept).editable if kept is not None else ""
    new_text = remove_lines(
        document.editable, section, gone,
        drop_empty=find_section(split_lines(kept_text), section) is None,
        final_newline=not kept_text or kept_text.endswith("\n"),
    )  # fmt: skip
    if kept is None and not new_text.strip():
        return None
    return document.with_editable(new_text)


def _commit(
    folder: BackupFolder,
    index: BackupIndex,
    held: FileLock,
    stack: list[dict[str, object]],
    change: AppliedChange,
    max_versions: int,
    write: Callable[[], None],
) -> None:
    """Note the change as pending, write the file, then commit the index and prune."""
    committed = BackupIndex(index.counter, list(stack), [*index.changes, change_record(change)])
    doomed = folder.plan_pruning(committed, max_versions)
    index.pending = {"after_sha": change.after_sha, "state": committed.state()}
    held.check()
    folder.save(index)
    held.check()
    write()
    folder.save(committed)
    folder.delete(doomed)


@contextmanager
def _locked(target: InstructionTarget, lock: LockSettings) -> Iterator[FileLock]:
    state = target.root / STATE_DIR
    keep_out_of_git(state / "locks")
    keep_out_of_git(state / "backups")
    held = FileLock(target.lock_path, stale_after=lock.stale_after, timeout=lock.timeout)
    with held:
        remove_leftovers(target.path)
        yield held


def added_lines(before: str, section: str, wanted: list[str]) -> list[str]:
    """Of `wanted`, the lines the section does not hold yet."""
    present = set(section_lines(before, section))
    return [line for line in wanted if line not in present]


def _check_max_versions(max_versions: int) -> None:
    if max_versions < 1:
        raise ImprovementError(f"backup_max_versions: must be 1 or more, not {max_versions}")


def _slug(reason: str) -> str:
    slug = "".join(c if c in _REASON_CHARS else "-" for c in reason.lower()).strip("-")
    return slug or "change"
