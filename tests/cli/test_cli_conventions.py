"""The command line in pipes and plain terminals, run as the real console script through a real
shell: a reader that closes early is no error, a stream that cannot encode gets ASCII, piped output
is not wrapped, the replay summary says what its counts are."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "transcripts" / "flaky-tests.jsonl"
ONLOOKER = Path(sys.executable).with_name("onlooker")
LONG = "a loop that goes on and on, well past eighty columns, so that a wrapped line would show it"


def shell(command: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`command` under bash with pipefail, `onlooker` on PATH: a pipeline's status is the worst."""
    path = f"{ONLOOKER.parent}{os.pathsep}{os.environ['PATH']}"
    full = {**os.environ, "PATH": path, **env}
    full.pop("COLUMNS", None)
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "app"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    for _ in range(3):
        done = shell(f"onlooker observations add --observer Stall '{LONG}'", folder)
        assert done.returncode == 0, done.stderr
    return folder


@pytest.mark.parametrize(
    "command",
    [
        f"onlooker replay {DEMO} | head -1",
        "onlooker config show | head -1",
        "onlooker observations list | head -1",
        "onlooker --help | head -1",
    ],
)
def test_a_reader_that_closes_early_is_no_error(command: str, project: Path) -> None:
    done = shell(command, project)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert len(done.stdout.splitlines()) == 1


@pytest.mark.parametrize(
    "env", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"}]
)
def test_a_stream_that_cannot_encode_gets_ascii_bars(env: dict[str, str], project: Path) -> None:
    done = shell("onlooker status", project, **env)
    assert done.returncode == 0, done.stderr
    assert "?" not in done.stdout
    assert "------------------------  0/1 addressed" in done.stdout  # the bar, in ASCII


def test_piped_output_is_neither_wrapped_nor_coloured(project: Path) -> None:
    done = shell("onlooker observations list | cat", project, TERM="xterm-256color")
    assert done.returncode == 0, done.stderr
    assert "\x1b[" not in done.stdout
    assert any(LONG in line for line in done.stdout.splitlines())  # on one line, not wrapped


def test_the_replay_summary_says_what_its_counts_are(tmp_path: Path) -> None:
    done = shell(f"onlooker replay {DEMO} --quiet", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "(read, but no event: metadata, progress, snapshots)" in done.stdout
    assert "(could not be read)" in done.stdout
