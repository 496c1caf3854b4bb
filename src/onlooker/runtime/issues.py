"""Issue filing: findings of the chosen severities become issues (specs/config.md, pattern 5).

Each becomes one entry in a local issues file (default `.onlooker/issues.md`), marked with the
finding's id so it is never written twice; with `github: true` each entry is also opened with
`gh issue create` (when `gh` is installed) and the entry records the issue's URL. The file is
rewritten whole under a lock, so concurrent writers neither lose nor duplicate an entry. The lock
is not held while `gh` runs (seconds per issue): a run first marks the entries it opens as its
own, so no other run opens them too, then records the URLs under the lock again.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..config.project import IssueFiling, ProjectConfig
from ..store import UNRESOLVED, FindingQuery, Observation, Store
from ..store._database import file_lock

HEADER = "# Issues from onlooker\n\nFindings filed by onlooker's post-processing, newest last.\n"
MARK = "<!-- onlooker:finding {id} -->"
_MARK = re.compile(r"<!-- onlooker:finding ([0-9a-f]+) -->")
PENDING = "- GitHub: pending"
OPENING = "- GitHub: opening (pid {pid})"
_OPENING = re.compile(r"^- GitHub: opening \(pid (\d+)\)$", re.MULTILINE)
GH_TIMEOUT = 60.0
HOOK_WAIT = 0.2
"""Seconds a hook waits for the issues file's lock: held only to read and rewrite the file, it is
normally free; when not, the hook leaves the filing to a detached run."""


@dataclass(frozen=True, slots=True)
class Filing:
    """What one run of the post-processing did."""

    path: Path
    added: tuple[str, ...] = ()
    """Ids of findings that got a new entry."""
    opened: dict[str, str] = field(default_factory=dict)
    """Finding id -> GitHub issue URL, for issues opened now."""
    failed: dict[str, str] = field(default_factory=dict)
    """Finding id -> why `gh issue create` failed."""
    gh_missing: bool = False
    """GitHub is asked for but `gh` is not installed: entries stay pending."""
    busy: bool = False
    """Another run held the issues file past `HOOK_WAIT`: nothing was filed this time."""


def file_issues(
    observations: Iterable[Observation],
    filing: IssueFiling,
    root: Path,
    *,
    github: bool = True,
    wait: bool = True,
) -> Filing:
    """Add an entry for each finding of the chosen severities not yet in the issues file; then,
    when the config opts in and `github` is true, open the pending entries on GitHub. Without
    `wait`, a `busy` Filing when another run holds the file for longer than `HOOK_WAIT`."""
    path = root / filing.file
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(path.name + ".lock")
    gh = shutil.which("gh") if filing.github and github else None
    try:
        with file_lock(lock, wait=None if wait else HOOK_WAIT):
            text = path.read_text(encoding="utf-8") if path.exists() else HEADER
            text, added = _add_entries(text, observations, filing)
            text, stopped = _release_stopped_claims(text)
            claimed = list(_pending_entries(text)) if gh else []
            for finding_id, _, _ in claimed:
                text = _note(text, finding_id, PENDING, OPENING.format(pid=os.getpid()))
            if added or stopped or claimed:
                _write(path, text)
    except BlockingIOError:
        return Filing(path, busy=True)
    missing = filing.github and github and gh is None and PENDING in text
    if gh is None or not claimed:
        return Filing(path, tuple(added), gh_missing=missing)
    notes, opened, failed = _open_on_github(gh, claimed, filing, root)
    with file_lock(lock):
        text = path.read_text(encoding="utf-8")
        for finding_id, note in notes.items():
            text = _note(text, finding_id, OPENING.format(pid=os.getpid()), note)
        _write(path, text)
    return Filing(path, tuple(added), opened, failed)


def file_project_issues(
    store: Store, config: ProjectConfig, project: str, *, github: bool = True, wait: bool = True
) -> Filing | None:
    """Run the post-processing over the unresolved findings of the project's reviewers (None
    when the config does not ask for it). It belongs to the hooks-observations module: findings
    of the built-in trajectory observers are not filed."""
    filing = config.issues
    if filing is None:
        return None
    reviewers = tuple(r.name for r in config.reviewers)
    if not reviewers:
        return file_issues((), filing, config.root, github=github, wait=wait)
    query = FindingQuery(
        project=project,
        statuses=UNRESOLVED,
        severities=filing.severities,
        observers=reviewers,
        sort_by="created_at",
    )
    oldest_first = reversed(store.query(query).observations)
    return file_issues(oldest_first, filing, config.root, github=github, wait=wait)


def file_at_hook(store: Store, config: ProjectConfig, project: str) -> Filing | None:
    """After reviewers reported at a hook: the issues file now; GitHub, which takes seconds, in
    a detached `onlooker issues` process, so no hook waits on it. When another run holds the
    issues file, the detached process files the entries too."""
    done = file_project_issues(store, config, project, github=False, wait=False)
    if done is None or config.issues is None:
        return done
    if done.busy or (done.added and config.issues.github):
        opening = subprocess.Popen(
            [sys.executable, "-m", "onlooker", "issues", "--project", project],
            cwd=config.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        threading.Thread(target=opening.wait, daemon=True).start()  # reaped when it ends
    return done


def entry(observation: Observation, filing: IssueFiling) -> str:
    """One finding as an issue entry: heading, marker, facts, then its content."""
    f = observation.finding
    found = f"{f.created_at:%Y-%m-%d %H:%M} UTC" if f.created_at else "unknown"
    lines = [
        f"## [{f.severity}] {f.observer}: {_title(f.content)}",
        MARK.format(id=f.id),
        f"- type: {filing.issue_type} · severity: {f.severity} · observer: {f.observer}",
        f"- found: {found} · finding: {f.id[:8]} (`onlooker observations show {f.id[:8]}`)",
    ]
    if f.source_ref:
        lines.append(f"- where: {f.source_ref}")
    if filing.github:
        lines.append(PENDING)
    lines += ["", re.sub(r"^#", r"\\#", f.content.strip(), flags=re.MULTILINE)]
    if f.evidence:
        lines += ["", "Evidence:", "", *(f"    {line}" for line in f.evidence.splitlines())]
    return "\n".join(lines) + "\n"


def _add_entries(
    text: str, observations: Iterable[Observation], filing: IssueFiling
) -> tuple[str, list[str]]:
    known = set(_MARK.findall(text))
    added: list[str] = []
    for observation in observations:
        finding = observation.finding
        if finding.severity in filing.severities and finding.id not in known:
            text += "\n" + entry(observation, filing)
            known.add(finding.id)
            added.append(finding.id)
    return text, added


def _release_stopped_claims(text: str) -> tuple[str, bool]:
    """Entries a run was opening when it stopped: noted as not opened, never opened twice (the
    issue may exist on GitHub already)."""
    stopped = [m for m in _OPENING.finditer(text) if not _alive(int(m.group(1)))]
    for found in reversed(stopped):
        note = "- GitHub: not opened (the run opening it stopped; check GitHub before filing it)"
        text = text[: found.start()] + note + text[found.end() :]
    return text, bool(stopped)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        pass
    return True


def _open_on_github(
    gh: str, claimed: list[tuple[str, str, str]], filing: IssueFiling, root: Path
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Run `gh issue create` for each claimed entry: (finding id -> the entry's new GitHub line,
    finding id -> URL opened, finding id -> why it failed)."""
    notes: dict[str, str] = {}
    opened: dict[str, str] = {}
    failed: dict[str, str] = {}
    for finding_id, title, body in claimed:
        command = [gh, "issue", "create", "--title", title, "--body", body]
        command += ["--label", filing.issue_type]
        if filing.auto_assign:
            command += ["--assignee", "@me"]
        try:
            done = subprocess.run(
                command, cwd=root, capture_output=True, text=True, timeout=GH_TIMEOUT, check=False
            )
            url = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
            reason = (
                "" if done.returncode == 0 else (done.stderr.strip() or f"exit {done.returncode}")
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            url, reason = "", str(exc)
        if reason:
            failed[finding_id] = reason
            notes[finding_id] = f"- GitHub: not opened ({' '.join(reason.split())[:200]})"
        else:
            opened[finding_id] = url
            notes[finding_id] = f"- GitHub: {url}"
    return notes, opened, failed


def _note(text: str, finding_id: str, line: str, new: str) -> str:
    """Replace a line of one finding's entry (its first occurrence there)."""
    marker = MARK.format(id=finding_id)
    head, found, tail = text.partition(marker)
    if not found:
        return text
    own, heading, rest = tail.partition("\n## ")
    return head + marker + own.replace(line, new, 1) + heading + rest


def _pending_entries(text: str) -> Iterator[tuple[str, str, str]]:
    """(finding id, title, body) of each entry still waiting for its GitHub issue."""
    for block in text.split("\n## ")[1:]:
        heading, _, rest = block.partition("\n")
        found = _MARK.search(rest)
        if found and PENDING in rest:
            body = rest.replace(found.group(0) + "\n", "").replace(PENDING + "\n", "")
            yield found.group(1), heading, body.strip() + "\n\nFiled by onlooker."


def _title(content: str) -> str:
    line = " ".join(content.split())
    return line if len(line) <= 100 else line[:99] + "…"


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
