"""Schema checks: one check of a reviewer's answer and of a search tool call's arguments, with
jsonschema and with the hand-written checks it replaced, next to what each check sits in (one model
call to a local endpoint that answers at once; one search tool call over stdio, empty store)."""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from onlooker.core.assessment import SEVERITIES
from onlooker.llm import Message, model_from_string
from onlooker.llm.schema import schema_problem
from onlooker.mcp.arguments import check_arguments
from onlooker.mcp.tool_specs import SEARCH
from onlooker.reviewers._prompt import OUTPUT_SCHEMA
from onlooker.testing.openai_endpoint import ScriptedEndpoint

from . import schema_baseline
from .measure import Result, report

CHECKS = 2_000
CALLS = 30
ANSWER = {
    "observations": [
        {
            "content": f"Finding {n}: the retry loop re-reads the same file without a change.",
            "severity": SEVERITIES[n % len(SEVERITIES)],
            "source_ref": f"src/app.py:{10 * n}",
            "metadata": {"category": "performance", "suggestion": "cache the parsed file"},
        }
        for n in range(5)
    ],
    "resolved": ["3f2a1c9e"],
}
"""A reviewer's answer of usual size: five findings and one resolved."""
ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
ARGUMENTS = {"query": "flaky test", "limit": 10, "kinds": ["memory"], "files": ["src/app.py"]}


def per_check(check: Callable[[], object], runs: int) -> float:
    """Median seconds of one call of `check`, over 5 rounds of `runs` calls."""
    check()
    rounds = []
    for _ in range(5):
        began = time.perf_counter()
        for _ in range(runs):
            check()
        rounds.append((time.perf_counter() - began) / runs)
    return statistics.median(rounds)


def model_call_seconds() -> float:
    """Median seconds of one `complete` with the reviewer schema through the real openai-compatible
    provider against a local endpoint with no latency: the cheapest call a check can sit in."""
    with ScriptedEndpoint(ANSWER) as endpoint:
        model = model_from_string(endpoint.spec())
        messages = [Message("user", "review this")]

        async def calls() -> list[float]:
            spent = []
            for _ in range(CALLS + 1):
                began = time.perf_counter()
                await model.complete(messages, schema=OUTPUT_SCHEMA, timeout=10)
                spent.append(time.perf_counter() - began)
            return spent[1:]  # the first opens the connection

        return statistics.median(asyncio.run(calls()))


def tool_call_seconds() -> float:
    """Median seconds of one search tool call over stdio (`onlooker mcp`, the real `mcp` client)
    on an empty store: the cheapest call an argument check can sit in."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def calls(home: str) -> list[float]:
        env = {**os.environ, "ONLOOKER_HOME": home, "CLAUDE_CONFIG_DIR": f"{home}/claude"}
        server = StdioServerParameters(command=ONLOOKER, args=["mcp"], env=env, cwd=home)
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            spent = []
            for _ in range(CALLS + 1):
                began = time.perf_counter()
                await session.call_tool("search", {**ARGUMENTS, "mode": "text"})
                spent.append(time.perf_counter() - began)
            return spent[1:]  # the first opens the store

    with tempfile.TemporaryDirectory() as home:
        return statistics.median(anyio.run(calls, home))


def figures(label: str, ours: float, before: float, around: float, what: str) -> list[Result]:
    return [
        Result(f"{label}, jsonschema", f"{ours * 1e6:.0f} µs", "one check (median)"),
        Result(f"{label}, hand-written", f"{before * 1e6:.0f} µs", "the check it replaced"),
        Result(f"{label}, jsonschema ÷ hand-written", f"{ours / before:.1f}x", "same run"),
        Result(f"{label}, check ÷ {what}", f"{ours / around:.1%}", "what the check sits in"),
    ]


def run(checks: int = CHECKS) -> list[Result]:
    assert schema_problem(ANSWER, OUTPUT_SCHEMA) is None
    answer = per_check(lambda: schema_problem(ANSWER, OUTPUT_SCHEMA), checks)
    answer_before = per_check(lambda: schema_baseline.schema_problem(ANSWER, OUTPUT_SCHEMA), checks)
    arguments = per_check(lambda: check_arguments(SEARCH.input_schema, ARGUMENTS), checks)
    arguments_before = per_check(
        lambda: schema_baseline.check_arguments(SEARCH.input_schema, ARGUMENTS), checks
    )
    call, tool = model_call_seconds(), tool_call_seconds()
    return [
        *figures("answer", answer, answer_before, call, "model call"),
        Result("model call", f"{call * 1000:.1f} ms", "openai-compatible, local, no latency"),
        *figures("arguments", arguments, arguments_before, tool, "tool call"),
        Result("tool call", f"{tool * 1000:.1f} ms", "search over stdio, empty store"),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the figures: `python -m benchmarks.bench_schema [CHECKS]`."""
    args = sys.argv[1:] if argv is None else argv
    return report(run(*(int(arg) for arg in args[:1])))


if __name__ == "__main__":
    raise SystemExit(main())
