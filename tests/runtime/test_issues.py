"""Pattern 5: critical and high findings become issues in a local file and, opted in, on GitHub
through the real `gh` command line (a fake `gh` executable on PATH stands in for GitHub)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from onlooker.config import IssueFiling, ProjectConfig, load_project
from onlooker.core.assessment import Finding
from onlooker.reviewers.config import ReviewerConfig
from onlooker.reviewers.watch import FilesTarget
from onlooker.runtime.issues import MARK, OPENING, PENDING, file_at_hook, file_project_issues
from onlooker.store import Store, project_for

PROJECT = "app"
ONLOOKER = Path(sys.executable).with_name("onlooker")
EXAMPLES = Path(__file__).parents[2] / "examples" / "config"

FAKE_GH = """#!/bin/sh
# Stands in for GitHub's CLI: logs its arguments, answers like `gh issue create`.
printf '%s\\n' "$@" > "$GH_LOG/call-$$.args"
echo "---" >> "$GH_LOG/call-$$.args"
if [ -n "$GH_FAIL" ]; then echo "HTTP 401: Bad credentials" >&2; exit 1; fi
n=$(ls "$GH_LOG" | wc -l | tr -d ' ')
echo "Creating issue in acme/app"
echo "https://github.com/acme/app/issues/$n"
"""


@pytest.fixture
def store(onlooker_home: Path) -> Iterator[Store]:
    with Store(onlooker_home) as opened:
        yield opened


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / PROJECT
    (folder / ".git").mkdir(parents=True)
    return folder


@pytest.fixture
def gh_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake `gh` first on PATH; returns the folder where it logs each call."""
    bin_dir, log = tmp_path / "bin", tmp_path / "gh-log"
    bin_dir.mkdir()
    log.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GH_LOG", str(log))
    return log


HOLD_LOCK = """import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


def add(store: Store, content: str, severity: str, project: str = PROJECT) -> str:
    finding = Finding(content=content, observer="Security Reviewer", severity=severity,  # type: ignore[arg-type]
                      source_type="file", source_ref="src/db.py:45")  # fmt: skip
    [created] = store.create([finding], project=project)
    return created.observation.id


REVIEWER = ReviewerConfig(
    name="Security Reviewer",
    role="Security vulnerability analysis",
    focus="Injection, credentials",
    model="anthropic:claude-3-5-sonnet",
    watch=(FilesTarget(("src/**/*.py",)),),
)


def config(root: Path, **options: object) -> ProjectConfig:
    filing = IssueFiling(**options)  # type: ignore[arg-type]
    return ProjectConfig(root=root, reviewers=(REVIEWER,), issues=filing)


def calls(log: Path) -> list[list[str]]:
    return [p.read_text().split("\n---\n")[0].splitlines() for p in sorted(log.iterdir())]


def test_each_critical_or_high_finding_gets_one_entry_never_two(store: Store, root: Path) -> None:
    critical = add(store, "SQL built by string formatting in query()", "critical")
    high = add(store, "Shell command built from user input", "high")
    add(store, "Long function", "medium")
    store.create(
        [Finding(content="Loop on pytest", observer="Stall", severity="high")], project=PROJECT
    )
    done = file_project_issues(store, config(root), PROJECT)
    assert done is not None and set(done.added) == {critical, high}
    text = (root / ".onlooker" / "issues.md").read_text()
    assert text.count("\n## ") == 2 and "Long function" not in text and "Loop" not in text
    assert "## [critical] Security Reviewer: SQL built by string formatting in query()" in text
    assert f"<!-- onlooker:finding {critical} -->" in text and "- where: src/db.py:45" in text
    assert PENDING not in text  # GitHub is off unless opted in
    again = file_project_issues(store, config(root), PROJECT)
    assert again is not None and again.added == ()
    assert (root / ".onlooker" / "issues.md").read_text() == text
    newer = add(store, "Path traversal in download()", "high")
    assert file_project_issues(store, config(root), PROJECT).added == (newer,)  # type: ignore[union-attr]
    assert (root / ".onlooker" / "issues.md").read_text().count("\n## ") == 3


def test_no_post_processing_no_issues(store: Store, root: Path) -> None:
    add(store, "SQL built by string formatting", "critical")
    assert file_project_issues(store, ProjectConfig(root=root), PROJECT) is None
    assert not (root / ".onlooker").exists()


def test_opted_in_entries_are_opened_with_gh_once(store: Store, root: Path, gh_log: Path) -> None:
    first = add(store, "SQL built by string formatting", "critical")
    second = add(store, "Hardcoded API token", "high")
    chosen = config(root, github=True, auto_assign=True)
    done = file_project_issues(store, chosen, PROJECT)
    assert done is not None and len(done.opened) == 2 and not done.failed
    made = calls(gh_log)
    assert len(made) == 2
    assert made[0][:5] == [
        "issue",
        "create",
        "--title",
        "[critical] Security Reviewer: SQL built by string formatting",
        "--body",
    ]
    assert made[0][-4:] == ["--label", "bug", "--assignee", "@me"]
    text = (root / ".onlooker" / "issues.md").read_text()
    assert f"- GitHub: {done.opened[first]}" in text and f"- GitHub: {done.opened[second]}" in text
    assert PENDING not in text
    assert file_project_issues(store, chosen, PROJECT).opened == {}  # type: ignore[union-attr]
    assert len(calls(gh_log)) == 2


def test_a_failing_gh_is_noted_once_and_not_retried(
    store: Store, root: Path, gh_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    finding = add(store, "SQL built by string formatting", "critical")
    monkeypatch.setenv("GH_FAIL", "1")
    done = file_project_issues(store, config(root, github=True), PROJECT)
    assert done is not None and "Bad credentials" in done.failed[finding]
    text = (root / ".onlooker" / "issues.md").read_text()
    assert "- GitHub: not opened (HTTP 401: Bad credentials)" in text
    file_project_issues(store, config(root, github=True), PROJECT)
    assert len(calls(gh_log)) == 1


def test_without_gh_entries_wait_until_it_is_installed(
    store: Store, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(store, "SQL built by string formatting", "critical")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    done = file_project_issues(store, config(root, github=True), PROJECT)
    assert done is not None and done.gh_missing and len(done.added) == 1
    assert PENDING in (root / ".onlooker" / "issues.md").read_text()
    monkeypatch.undo()
    gh_log = tmp_path / "gh-later"
    bin_dir = tmp_path / "bin-later"
    bin_dir.mkdir()
    gh_log.mkdir()
    (bin_dir / "gh").write_text(FAKE_GH)
    (bin_dir / "gh").chmod(0o755)
    monkeypatch.setenv("ONLOOKER_HOME", str(store.home))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GH_LOG", str(gh_log))
    later = file_project_issues(store, config(root, github=True), PROJECT)
    assert later is not None and later.added == () and len(later.opened) == 1
    assert PENDING not in (root / ".onlooker" / "issues.md").read_text()


def test_the_issues_command_with_pattern_5_and_concurrent_runs(store: Store, root: Path) -> None:
    (root / "onlooker.yaml").write_text((EXAMPLES / "pattern5-issues.yaml").read_text())
    for place in ("login", "search", "upload", "export", "admin"):
        add(store, f"Injection risk in {place}()", "high", project_for(root))  # as the CLI keys it
    runs = [
        subprocess.Popen(
            [ONLOOKER, "issues", "--json"], cwd=root, stdout=subprocess.PIPE, text=True
        )
        for _ in range(3)
    ]
    outputs = [json.loads(run.communicate(timeout=60)[0]) for run in runs]
    assert sorted(len(o["added"]) for o in outputs) == [0, 0, 5]
    text = (root / ".onlooker" / "issues.md").read_text()
    assert text.count("\n## [high]") == 5
    done = subprocess.run(
        [ONLOOKER, "issues"], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.startswith("0 new issue entries in")


def test_the_hook_does_not_wait_for_another_run_holding_the_issues_file(
    store: Store, root: Path
) -> None:
    (root / "onlooker.yaml").write_text((EXAMPLES / "pattern5-issues.yaml").read_text())
    (root / ".onlooker").mkdir()
    finding = add(store, "SQL built by string formatting", "critical")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(root / ".onlooker" / "issues.md.lock")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        started = time.monotonic()
        done = file_at_hook(store, load_project(root), PROJECT)
        assert time.monotonic() - started < 2.0
        assert done is not None and done.busy and done.added == ()
    finally:
        holder.communicate("")  # lets go of the lock
    issues = root / ".onlooker" / "issues.md"
    give_up = time.monotonic() + 60  # the detached `onlooker issues` files it once the lock is free
    while not (issues.exists() and MARK.format(id=finding) in issues.read_text()):
        assert time.monotonic() < give_up, "the detached run did not file the finding"
        time.sleep(0.05)


def test_entries_are_filed_while_gh_runs_and_each_opened_once(
    store: Store, root: Path, gh_log: Path, tmp_path: Path
) -> None:
    (root / "onlooker.yaml").write_text(
        (EXAMPLES / "pattern5-issues.yaml").read_text().replace("github: false", "github: true")
    )
    key = project_for(root)  # as the CLI keys the project
    first = add(store, "SQL built by string formatting", "critical", key)
    slow_gh = tmp_path / "bin" / "gh"
    logged = 'echo "---" >> "$GH_LOG/call-$$.args"\n'
    slow_gh.write_text(FAKE_GH.replace(logged, logged + "sleep 3\n", 1))
    opening = subprocess.Popen(
        [ONLOOKER, "issues", "--json"], cwd=root, stdout=subprocess.PIPE, text=True
    )
    issues = root / ".onlooker" / "issues.md"
    give_up = time.monotonic() + 30
    while not list(gh_log.iterdir()):  # gh is running for the first entry
        assert time.monotonic() < give_up, "gh was not started"
        time.sleep(0.02)
    second = add(store, "Hardcoded API token", "high", key)
    started = time.monotonic()
    config = load_project(root)
    done = file_project_issues(store, config, key, github=False, wait=False)
    assert time.monotonic() - started < 2.0
    assert done is not None and done.added == (second,)
    assert OPENING.format(pid=opening.pid) in issues.read_text()
    report = json.loads(opening.communicate(timeout=60)[0])
    assert list(report["opened"]) == [first]
    later = file_project_issues(store, config, key)
    assert later is not None and list(later.opened) == [second]
    assert len(calls(gh_log)) == 2 and PENDING not in issues.read_text()
    assert "opening" not in issues.read_text()


def test_an_entry_whose_opening_run_stopped_is_not_opened_again(
    store: Store, root: Path, gh_log: Path
) -> None:
    finding = add(store, "SQL built by string formatting", "critical")
    chosen = config(root, github=True)
    file_project_issues(store, chosen, PROJECT, github=False)
    issues = root / ".onlooker" / "issues.md"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stopped = OPENING.format(pid=int(gone.stdout))
    issues.write_text(issues.read_text().replace(PENDING, stopped))
    done = file_project_issues(store, chosen, PROJECT)
    assert done is not None and done.opened == {} and calls(gh_log) == []
    text = issues.read_text()
    assert "- GitHub: not opened (the run opening it stopped" in text and stopped not in text
    assert text.count(MARK.format(id=finding)) == 1
