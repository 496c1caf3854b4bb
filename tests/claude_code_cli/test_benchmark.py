"""The Claude Code benchmark runs (small) and reports the figures it promises, side by side."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_claude_code_benchmark_reports_first_request_session_and_tool_call_costs(
    claude: Path,
) -> None:
    code = "from benchmarks.bench_claude_code import main; raise SystemExit(main(['1', '3']))"
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode in (0, 1), run.stderr  # 1: a ratio missed its target
    assert "Traceback" not in run.stderr
    names = [line.split("  ")[1].strip() for line in run.stdout.splitlines()]
    assert names == [
        "plain: first request",
        "plain: session of 3 calls",
        "plain: one tool call",
        "hooks only: first request",
        "hooks only: session",
        "hooks only: one tool call",
        "as the README installs it: first request",
        "as the README installs it: session",
        "as the README installs it: one tool call",
        "floor: `true` hooks: first request",
        "floor: `true` hooks: session",
        "floor: `true` hooks: one tool call",
        "floor: bare Python hooks: first request",
        "floor: bare Python hooks: session",
        "floor: bare Python hooks: one tool call",
        "floor: bare Python hooks and MCP server: first request",
        "floor: bare Python hooks and MCP server: session",
        "floor: bare Python hooks and MCP server: one tool call",
        "as the README installs it ÷ floor: bare Python hooks: first request",
        "as the README installs it ÷ floor: bare Python hooks: session",
        "as the README installs it ÷ floor: bare Python hooks and MCP server: first request",
        "as the README installs it ÷ floor: bare Python hooks and MCP server: session",
        "warm-up round, not counted: first request",
        "round 1: first request, README ÷ plain",
        "outlier rounds: first request",
    ]
    assert "s plain; each round" in run.stdout and "ms vs" in run.stdout
    assert "cores busy" in run.stdout  # how busy the rest of the machine was (Linux)
