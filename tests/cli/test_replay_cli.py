"""`onlooker replay`, run as the real console script in a subprocess."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "transcripts" / "flaky-tests.jsonl"
ONLOOKER = Path(sys.executable).with_name("onlooker")
SESSION_ID = "0b6d1d0e-7f55-4a3e-9a51-3c1f1d2b8e11"
HEADER = re.compile(r"^── call (\d+) · (\w+) · \d\d:\d\d:\d\d ──$", re.MULTILINE)


def onlooker(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    return subprocess.run(
        [str(ONLOOKER), *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_json_output_is_one_array_with_the_documented_keys(fixtures: Path) -> None:
    run = onlooker("replay", fixtures / "transcripts" / f"{SESSION_ID}.jsonl", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [s["session_id"] for s in data] == [
        SESSION_ID,
        f"{SESSION_ID}-agent-a1b2c3d",
        f"{SESSION_ID}-agent-a9e8f7d",
    ]
    for session in data:
        assert {"session_id", "path", "tool_calls", "assessments", "failures"} <= set(session)
        for assessment in session["assessments"]:
            assert {
                "observer",
                "call_index",
                "severity",
                "summary",
                "findings",
                "suggestions",
            } <= set(assessment)
    assert data[0]["tool_calls"] == 5
    assert data[0]["malformed_lines"] == [13, 14, 15]
    assert run.stderr == ""


def test_human_output_shows_each_injection_then_a_summary() -> None:
    run = onlooker("replay", DEMO, "--deadline", "20")
    assert run.returncode == 0, run.stderr
    headers = HEADER.findall(run.stdout)
    assert headers, run.stdout
    numbers = [int(n) for n, _ in headers]
    assert numbers == sorted(numbers)
    assert any(tool == "TodoWrite" for _, tool in headers)
    assert "[Deadline] 9 minutes remaining (51% of the time used)." in run.stdout
    assert "[Plan Progress] Completed 1/4 steps." in run.stdout
    assert "[Trajectory Assessment - Error Cascade]" in run.stdout
    assert "[Trajectory Assessment - Stall]" in run.stdout
    summary = run.stdout.split("\nsummary\n", 1)[1]
    assert re.search(r"tool calls\s+43\b", summary)
    assert re.search(r"Deadline\s+\d+ high, \d+ info", summary)
    assert re.search(r"malformed lines\s+0\b", summary)
    assert run.stderr == ""  # no progress bar when stderr is not a terminal


def test_quiet_prints_only_the_summaries() -> None:
    run = onlooker("replay", DEMO, "--deadline", "20", "--quiet")
    assert run.returncode == 0, run.stderr
    assert not HEADER.search(run.stdout)
    assert "\nsummary\n" in run.stdout


def test_observers_can_be_chosen_by_name() -> None:
    run = onlooker("replay", DEMO, "--deadline", "20", "--observer", "plan", "--json")
    assert run.returncode == 0, run.stderr
    (session,) = json.loads(run.stdout)
    assert {a["observer"] for a in session["assessments"]} == {"Plan Progress"}


def test_a_folder_replays_every_session_in_it(fixtures: Path) -> None:
    run = onlooker("replay", fixtures / "claude-code" / "sniffly", "--json")
    assert run.returncode == 0, run.stderr
    assert len(json.loads(run.stdout)) == 4


def test_a_missing_path_exits_2_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    run = onlooker("replay", missing, "--json")
    assert run.returncode == 2
    assert str(missing) in run.stderr
    assert run.stdout == ""


def test_a_file_that_is_not_a_transcript_exits_2(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# not a transcript\n")
    run = onlooker("replay", DEMO, notes)
    assert run.returncode == 2
    assert f"{notes}: not a Claude Code transcript" in run.stderr


def test_an_unknown_observer_exits_2() -> None:
    run = onlooker("replay", DEMO, "--observer", "nope")
    assert run.returncode == 2
    assert "unknown observer 'nope'" in run.stderr


def test_a_progress_bar_goes_to_a_terminal_stderr_only(fixtures: Path) -> None:
    terminal, stderr = pty.openpty()
    with subprocess.Popen(
        [str(ONLOOKER), "replay", str(fixtures / "claude-code" / "sniffly")],
        stdout=subprocess.PIPE,
        stderr=stderr,
        env={**os.environ, "COLUMNS": "100"},
    ) as process:
        os.close(stderr)
        assert process.stdout is not None
        stdout = process.stdout.read().decode()
        assert process.wait(timeout=120) == 0
    shown = b""
    while select.select([terminal], [], [], 0.5)[0]:
        try:
            chunk = os.read(terminal, 65536)
        except OSError:  # the other end is closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(terminal)
    assert b"replaying" in shown
    assert stdout.count("\nsummary\n") == 4  # the results stay on stdout
    assert "replaying" not in stdout


def test_output_the_console_cannot_encode_degrades_instead_of_crashing(tmp_path: Path) -> None:
    """A cp1252 console (or output redirected under such an encoding) gets `?` for box drawing
    and arrows; the command still runs to the end and its text is there."""
    onlooker = str(Path(sys.executable).with_name("onlooker"))
    env = {**os.environ, "PYTHONIOENCODING": "cp1252"}
    transcript = ROOT / "examples" / "transcripts" / "flaky-tests.jsonl"
    replay = subprocess.run([onlooker, "replay", str(transcript)], capture_output=True, env=env,
                            cwd=tmp_path, timeout=120)  # fmt: skip
    assert replay.returncode == 0, replay.stderr.decode("cp1252", "replace")
    assert b"[Trajectory Assessment - Stall" in replay.stdout
    status = subprocess.run([onlooker, "status"], capture_output=True, env=env, cwd=tmp_path,
                            timeout=60)  # fmt: skip
    assert status.returncode == 0, status.stderr.decode("cp1252", "replace")
    assert b"Observations" in status.stdout
