"""Seed 000's pattern 5: findings of the chosen severities become issues.

Each becomes one entry in a local issues file (default `.onlooker/issues.md`), marked with the
finding's id so it is never written twice; with `github: true` each entry is also opened with
`gh issue create` (when `gh` is installed) and the entry records the issue's URL. The file is
rewritten whole under a lock, so concurrent writers neither lose nor duplicate an entry.
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

from .config.project import IssueFiling, ProjectConfig
from .store import UNRESOLVED, FindingQuery, Observation, Store
from .store.database import file_lock

HEADER = "# Issues from onlooker\n\nFindings filed by onlooker's post-processing, newest last.\n"
MARK = "<!-- onlooker:finding {id} -->"
_MARK = re.compile(r"<!-- onlooker:finding ([0-9a-f]+) -->")
PENDING = "- GitHub: pending"
GH_TIMEOUT = 60.0


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


def file_issues(
    observations: Iterable[Observation],
    filing: IssueFiling,
    root: Path,
    *,
    github: bool = True,
) -> Filing:
    """Add an entry for each finding of the chosen severities not yet in the issues file; then,
    when the config opts in and `github` is true, open the pending entries on GitHub."""
    path = root / filing.file
    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(path.with_name(path.name + ".lock")):
        text = path.read_text(encoding="utf-8") if path.exists() else HEADER
        known = set(_MARK.findall(text))
        added: list[str] = []
        for observation in observations:
            finding = observation.finding
            if finding.severity in filing.severities and finding.id not in known:
                text += "\n" + entry(observation, filing)
                known.add(finding.id)
                added.append(finding.id)
        result = Filing(path, tuple(added))
        if filing.github and github and PENDING in text:
            text, result = _open_on_github(text, filing, root, result)
        if added or result.opened or result.failed:
            _write(path, text)
    return result


def file_project_issues(
    store: Store, config: ProjectConfig, project: str, *, github: bool = True
) -> Filing | None:
    """Run the post-processing over the unresolved findings of the project's reviewers (None
    when the config does not ask for it). Like seed 000, it belongs to the hooks-observations
    module: findings of the built-in trajectory observers are not filed."""
    filing = config.issues
    if filing is None:
        return None
    reviewers = tuple(r.name for r in config.reviewers)
    if not reviewers:
        return file_issues((), filing, config.root, github=github)
    query = FindingQuery(
        project=project,
        statuses=UNRESOLVED,
        severities=filing.severities,
        observers=reviewers,
        sort_by="created_at",
    )
    oldest_first = reversed(store.query(query).observations)
    return file_issues(oldest_first, filing, config.root, github=github)


def file_at_hook(store: Store, config: ProjectConfig, project: str) -> Filing | None:
    """After reviewers reported at a hook: the issues file now; GitHub, which takes seconds, in
    a detached `onlooker issues` process, so no hook waits on it."""
    done = file_project_issues(store, config, project, github=False)
    if done is not None and done.added and config.issues is not None and config.issues.github:
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


def _open_on_github(
    text: str, filing: IssueFiling, root: Path, result: Filing
) -> tuple[str, Filing]:
    gh = shutil.which("gh")
    if gh is None:
        return text, Filing(result.path, result.added, gh_missing=True)
    opened: dict[str, str] = {}
    failed: dict[str, str] = {}
    for finding_id, title, body in _pending_entries(text):
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
        marker = MARK.format(id=finding_id)
        head, _, tail = text.partition(marker)
        if reason:
            failed[finding_id] = reason
            note = f"- GitHub: not opened ({' '.join(reason.split())[:200]})"
        else:
            opened[finding_id] = url
            note = f"- GitHub: {url}"
        text = head + marker + tail.replace(PENDING, note, 1)
    return text, Filing(result.path, result.added, opened, failed)


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
