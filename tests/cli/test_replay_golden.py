"""`onlooker replay --json` pinned whole over the real and labeled transcripts: what replay says
must not change when it is made faster (serial or spread over processes).

When an observer's behaviour changes on purpose, regenerate the golden files with
`.venv/bin/python -m tests.cli.test_replay_golden` and review the diff.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "fixtures" / "replay"
INPUTS = (
    "tests/fixtures/claude-code",
    "tests/fixtures/labeled",
    "tests/fixtures/transcripts",
    "examples/transcripts",
)
RUNS = {
    "observers.json": (),
    "observers-deadline-20.json": ("--deadline", "20"),
}
"""Golden file -> extra arguments."""
_IDS = re.compile(r"\[(ids?) ([0-9a-f]{8}(?:, [0-9a-f]{8})*)\]")


def numbered_ids(text: str) -> str:
    """Finding ids in injected texts (`[id 1a2b3c4d]`) are made fresh each run: each becomes
    `#n` by order of first appearance, so which texts name the same finding still counts."""
    seen: dict[str, str] = {}

    def number(match: re.Match[str]) -> str:
        ids = [seen.setdefault(i, f"#{len(seen) + 1}") for i in match[2].split(", ")]
        return f"[{match[1]} {', '.join(ids)}]"

    return _IDS.sub(number, text)


def replay_json(*extra: str, env: dict[str, str] | None = None) -> str:
    """`onlooker replay --json` over INPUTS, paths relative to the repository root."""
    run = subprocess.run(
        [sys.executable, "-m", "onlooker", "replay", "--json", *extra, *INPUTS],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, **(env or {})},
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    return numbered_ids(run.stdout)


@pytest.mark.parametrize("jobs", ["1", "3"])
@pytest.mark.parametrize("name", sorted(RUNS))
def test_replay_json_is_what_the_golden_file_says(name: str, jobs: str) -> None:
    """In this process alone, and spread over three worker processes."""
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    assert replay_json(*RUNS[name], "--jobs", jobs) == expected, (
        f"replay output differs from tests/fixtures/replay/{name}; if on purpose, regenerate "
        "with `.venv/bin/python -m tests.cli.test_replay_golden`"
    )


if __name__ == "__main__":
    GOLDEN.mkdir(exist_ok=True)
    for name, extra in RUNS.items():
        (GOLDEN / name).write_text(replay_json(*extra), encoding="utf-8")
