"""`onlooker observations`, `onlooker status` and `onlooker reindex` on the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from onlooker.cli import build_group
from onlooker.store import project_for

ONLOOKER = Path(sys.executable).with_name("onlooker")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current directory is inside a git checkout called `shop`."""
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    monkeypatch.chdir(root / "src")
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps at the terminal width
    return root


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(build_group(), list(args), input=input, catch_exceptions=False)


def call(request: dict[str, Any], *options: str) -> dict[str, Any]:
    result = run("observations", "call", json.dumps(request), *options)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def add(content: str, severity: str = "high", observer: str = "Security Reviewer") -> str:
    result = run(
        "observations", "add", content, "--observer", observer, "--severity", severity, "--json"
    )
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["observations"][0]["id"])


def test_call_speaks_the_tool_protocol(project: Path, tmp_path: Path) -> None:
    created = call(
        {
            "operation": "create_batch",
            "observations": [
                {
                    "observer": "Security Reviewer",
                    "content": "SQL injection",
                    "severity": "critical",
                }
            ],
        }
    )
    assert created["status"] == "created" and created["by_severity"] == {"critical": 1}
    assert created["observations"][0]["project"] == project_for(project)  # the current directory's
    listed = call({"operation": "list", "filters": {"status": "open"}})
    assert listed["count"] == 1 and listed["by_observer"] == {"Security Reviewer": 1}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert call({"operation": "list"}, "--project", str(elsewhere))["count"] == 0
    refused = run(
        "observations", "call", json.dumps({"operation": "list"}), "--project", "elswhere"
    )
    assert refused.exit_code == 2 and "nothing of a project 'elswhere'" in refused.output


def test_call_reads_stdin_or_a_file(project: Path, tmp_path: Path) -> None:
    request = tmp_path / "request.json"
    request.write_text('{"operation": "list"}')
    assert json.loads(run("observations", "call", f"@{request}").stdout)["status"] == "ok"
    piped = run("observations", "call", "-", input='{"operation": "clear_resolved"}')
    assert json.loads(piped.stdout)["status"] == "cleared"


def test_bad_requests_exit_2_and_name_the_field_or_the_file(project: Path, tmp_path: Path) -> None:
    wrong = run("observations", "call", '{"operation": "acknowledge"}')
    assert wrong.exit_code == 2
    assert json.loads(wrong.stdout)["field"] == "observation_id"

    broken = tmp_path / "broken.json"
    broken.write_text('{"operation": ')
    result = run("observations", "call", f"@{broken}")
    assert result.exit_code == 2
    assert f"request ({broken}): not valid JSON at line 1 column 15" in result.stderr
    missing = run("observations", "call", f"@{tmp_path / 'nope.json'}")
    assert missing.exit_code == 2 and "nope.json: cannot read the request" in missing.stderr

    unknown = run("observations", "ack", "zzzzzz")
    assert unknown.exit_code == 2
    assert "observation_id: 'zzzzzz' matches no observation in project 'shop'" in unknown.stderr


def test_friendly_verbs(project: Path) -> None:
    first = add("SQL injection in query builder", "critical")
    add("Hardcoded token", "high")
    add("No tests for the parser", "medium", "Quality")

    listed = run("observations", "list", "--severity", "critical", "--severity", "high", "--json")
    assert [o["content"] for o in json.loads(listed.stdout)["observations"]] == [
        "SQL injection in query builder",
        "Hardcoded token",
    ]
    table = run("observations", "list")
    assert "SQL injection in query builder" in table.stdout and first[:8] in table.stdout

    shown = run("observations", "show", first[:6])
    assert "content: SQL injection in query builder" in shown.stdout
    assert "status: open" in shown.stdout

    acked = run("observations", "ack", first[:6])
    assert acked.stdout.startswith(f"acknowledged {first[:8]} [critical]")
    resolved = run("observations", "resolve", first[:6], "--note", "parameterised")
    assert resolved.stdout.strip() == (
        "✓ resolved [critical] Security Reviewer: SQL injection in query builder — parameterised"
    )
    again = run("observations", "add", "SQL injection in query builder", "--observer", "X")
    assert again.stdout.startswith("+ 1 new observation")
    cleared = run("observations", "clear-resolved", "--json")
    assert json.loads(cleared.stdout)["ids"] == [first]
    found = json.loads(run("observations", "search", "parser", "--json").stdout)
    assert [o["content"] for o in found["observations"]] == ["No tests for the parser"]


def test_status_in_each_style(project: Path) -> None:
    add("SQL injection in query builder", "critical")
    done = add("Hardcoded token", "high")
    run("observations", "resolve", done)
    compact = run("status", "--style", "compact")
    assert compact.stdout == "shop: 1 open (1 critical) · 0 acknowledged · 1 resolved\n"
    bar = run("status")
    assert bar.stdout.startswith("Observations · shop  ")
    assert "1/2 addressed" in bar.stdout
    table = run("status", "--style", "table")
    assert "SQL injection in query builder" in table.stdout
    assert "Hardcoded token" not in table.stdout  # resolved ones only count
    data = json.loads(run("status", "--json").stdout)
    assert data["project"] == project_for(project) and data["project_name"] == "shop"
    assert data["by_status"] == {"open": 1, "resolved": 1}
    bad = run("status", "--style", "fancy")
    assert bad.exit_code == 2 and "'fancy' is not one of" in bad.stderr


def test_help_explains_each_command(project: Path) -> None:
    top = run("--help").stdout
    for name in ("observations", "status", "reindex"):
        assert name in top
    assert "create_batch" in run("observations", "--help").stdout
    assert "@FILE" in run("observations", "call", "--help").stdout
    assert "progress_bar" in run("status", "--help").stdout
    assert "--fresh" in run("reindex", "--help").stdout


def test_reindex_as_a_real_process(project: Path, onlooker_home: Path) -> None:
    kept = add("SQL injection in query builder", "critical")
    run("observations", "resolve", kept, "--note", "parameterised")
    (onlooker_home / "onlooker.db").unlink()
    env = {**os.environ, "ONLOOKER_HOME": str(onlooker_home)}
    rebuilt = subprocess.run(
        [str(ONLOOKER), "reindex", "--json"], capture_output=True, text=True, env=env, check=False
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    report = json.loads(rebuilt.stdout)
    assert (report["journals"], report["findings"], report["skipped"]) == (1, 1, [])
    [back] = call({"operation": "get", "ids": [kept]})["observations"]
    assert (back["status"], back["resolution_note"]) == ("resolved", "parameterised")


def test_a_damaged_index_is_named_and_reindex_fresh_repairs_it(
    project: Path, onlooker_home: Path
) -> None:
    add("survives", "low")
    (onlooker_home / "onlooker.db").write_bytes(b"garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        (onlooker_home / f"onlooker.db{suffix}").unlink(missing_ok=True)
    broken = run("status")
    assert broken.exit_code == 2
    assert f"{onlooker_home / 'onlooker.db'}: cannot open the index" in broken.stderr
    assert run("reindex", "--fresh").exit_code == 0
    assert "1 open" in run("status", "--style", "compact").stdout


def test_status_shows_observer_runs_and_cost(project: Path) -> None:
    from onlooker.store import Store

    with Store() as store:
        for status, cost in (("ok", 0.012), ("timeout", None), ("ok", 0.003)):
            store.record_observer_run(
                "Security Reviewer", session_id="s", project=project_for(project), status=status,  # type: ignore[arg-type]
                model="openai:gpt-4o-mini", input_tokens=1000, output_tokens=50, cost_usd=cost,
            )  # fmt: skip
        store.record_observer_run(
            "Logic Checker",
            session_id="s",
            project=project_for(project),
            status="skipped",
            model="local:smollm2",
        )
    text = run("status", "--style", "compact").stdout
    assert "Observer runs and cost" in text
    assert "Security Reviewer      3 runs, 1 timeout      3,000 in       150 out  $0.0150" in text
    assert (
        "Logic Checker          1 runs, 1 skipped          0 in         0 out  cost unknown" in text
    )
    assert "total                  4 runs      3,000 in       150 out  $0.0150" in text
    data = json.loads(run("status", "--json").stdout)
    by_name = {row["observer"]: row for row in data["observer_runs"]}
    assert by_name["Security Reviewer"]["by_status"] == {"ok": 2, "timeout": 1}
    assert by_name["Security Reviewer"]["cost_usd"] == pytest.approx(0.015)
    assert data["observer_totals"]["runs"] == 4 and data["observer_totals"]["input_tokens"] == 3000


def test_reindex_loads_journals_into_a_shared_store_and_refuses_fresh(
    project: Path, onlooker_home: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = add("Token logged in plain text", "high")  # into this machine's SQLite store
    monkeypatch.setenv("ONLOOKER_STORE_URL", postgres_url)
    refused = run("reindex", "--fresh")
    assert refused.exit_code == 2
    assert "shared PostgreSQL store" in refused.stderr
    assert (onlooker_home / "onlooker.db").exists()  # nothing deleted
    for _ in range(2):  # loading twice adds nothing
        loaded = run("reindex", "--json")
        assert loaded.exit_code == 0, loaded.stderr
        assert json.loads(loaded.stdout)["findings"] == 1
    [shared] = call({"operation": "get", "ids": [kept]})["observations"]
    assert shared["severity"] == "high"


def test_expired_observations_are_shown_apart_from_addressed_ones(project: Path) -> None:
    from onlooker.store import Store

    add("SQL injection in query builder", "critical")
    ended = add("Same failing call four times", "high", observer="Stall")
    done = add("Hardcoded token", "high")
    run("observations", "resolve", done, "--note", "moved to env")
    with Store() as store:  # what the end of the finding's session does
        store.expire({ended: "the session ended"}, project=project_for(project))
    listed = json.loads(run("observations", "list", "--status", "expired", "--json").stdout)
    assert [(o["id"], o["resolution_note"]) for o in listed["observations"]] == [
        (ended, "the session ended")
    ]
    bar = run("status").stdout
    assert "1/3 addressed · 1 expired unaddressed" in bar
    compact = run("status", "--style", "compact").stdout
    assert compact == "shop: 1 open (1 critical) · 0 acknowledged · 1 resolved · 1 expired\n"
    data = json.loads(run("status", "--json").stdout)
    assert data["by_status"] == {"expired": 1, "open": 1, "resolved": 1}
