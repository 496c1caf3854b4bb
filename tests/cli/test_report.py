"""`onlooker report` as a user runs it: a subprocess over a transcript or the store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "transcripts" / "flaky-tests.jsonl"


def onlooker(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "onlooker", "report", *args],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ONLOOKER_HOME": str(home)})  # fmt: skip


def test_the_demo_transcript_becomes_a_report_and_its_path_is_printed(tmp_path: Path) -> None:
    out = tmp_path / "demo.html"
    done = onlooker(str(DEMO), "--deadline", "20", "--out", str(out), home=tmp_path / "h")
    assert done.returncode == 0, done.stderr
    assert str(out.resolve()) in done.stdout and "1 session(s)" in done.stdout
    html = out.read_text()
    assert "Project taskq" in html and "after call" in html
    assert len(html.encode()) < 300_000


def test_json_says_what_was_written(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    done = onlooker(str(DEMO), "--json", "--out", str(out), home=tmp_path / "h")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["out"] == str(out.resolve()) and data["bytes"] == len(out.read_bytes())
    assert data["projects"][0]["name"] == "taskq" and data["projects"][0]["tool_calls"] == 43


def test_an_empty_store_gives_a_page_that_says_so(tmp_path: Path) -> None:
    out = tmp_path / "empty.html"
    done = onlooker("--out", str(out), "--since", "7d", home=tmp_path / "h")
    assert done.returncode == 0, done.stderr
    assert "Nothing recorded since" in out.read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "last tuesday"], "--since: 'last tuesday' is not a date"),
        (["--deadline", "5"], "--deadline and --observer apply to replayed PATHs only"),
    ],
)
def test_bad_options_fail_naming_the_option(tmp_path: Path, args: list[str], message: str) -> None:
    done = onlooker(*args, "--out", str(tmp_path / "x.html"), home=tmp_path / "h")
    assert done.returncode == 2 and message in done.stderr
    assert not (tmp_path / "x.html").exists()


def test_a_scores_file_is_checked_naming_the_file_and_the_row(tmp_path: Path) -> None:
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps([{"session_id": "s", "timestamp": "2026-03-01T00:00:00Z"}]))
    done = onlooker("--scores", str(scores), "--out", str(tmp_path / "x.html"), home=tmp_path)
    assert done.returncode == 2
    assert f"{scores}: score 1: field 'overall_score'" in done.stderr
