"""Keep the files that name this machine out of git: a project install adds
`.claude/settings.local.json` to the repository's `.git/info/exclude` when nothing ignores it (no
`.gitignore` line, no global excludes file), and uninstall takes exactly that line out again.

The line comes after a comment naming onlooker, so it is found again and nothing else is touched.
`.git/info/exclude` is the repository's own, never committed, so no teammate sees a change.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

COMMENT = "# added by `onlooker install claude-code`: it names this machine's paths"


def git_ignores(root: Path, path: Path) -> bool | None:
    """Whether git ignores `path` in the repository at `root` (None: no git, or no repository)."""
    done = _git(root, "check-ignore", "-q", str(path))
    return None if done is None else {0: True, 1: False}.get(done.returncode)


def exclude_file(root: Path) -> Path | None:
    """The repository's `info/exclude` (worktrees share their repository's)."""
    done = _git(root, "rev-parse", "--git-common-dir")
    if done is None or done.returncode != 0:
        return None
    common = Path(done.stdout.strip())
    return (common if common.is_absolute() else root / common) / "info" / "exclude"


def exclude(root: Path, path: Path, *, dry_run: bool = False) -> Path | None:
    """Add `path` (relative to `root`) to the exclude file when git does not ignore it yet; the
    exclude file when it was (or would be) changed."""
    if git_ignores(root, path) is not False:
        return None
    target = exclude_file(root)
    if target is None:
        return None
    if not dry_run:
        try:
            text = target.read_text(encoding="utf-8")
        except OSError:
            text = ""
        if text and not text.endswith("\n"):
            text += "\n"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"{text}{COMMENT}\n/{_relative(root, path)}\n", encoding="utf-8")
    return target


def unexclude(root: Path, path: Path, *, dry_run: bool = False) -> Path | None:
    """Take out the lines `exclude` added for `path`; the exclude file when it changed."""
    target = exclude_file(root)
    if target is None:
        return None
    try:
        lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError:
        return None
    ours = [COMMENT + "\n", f"/{_relative(root, path)}\n"]
    for index in range(len(lines) - 1):
        if lines[index : index + 2] == ours:
            if not dry_run:
                target.write_text("".join(lines[:index] + lines[index + 2 :]), encoding="utf-8")
            return target
    return None


def _relative(root: Path, path: Path) -> str:
    """`path` from the top of the work tree `root` is in (exclude lines are read from there)."""
    done = _git(root, "rev-parse", "--show-toplevel")
    top = Path(done.stdout.strip()) if done is not None and done.returncode == 0 else root
    return path.resolve().relative_to(top.resolve()).as_posix()


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
