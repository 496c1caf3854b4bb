"""MCP server figures: `onlooker mcp` start to its tools listed (beside a bare Python) and to its
first tool answer (beside a bare `import mcp`),
then per-call latency over stdio of search, get_observations, observations list and read, with
10,000 findings and 2,000 embedded memories stored; and how much of `read` on a 1 MB transcript is
redaction."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.measure import Result
from onlooker.mcp import read as read_module
from onlooker.mcp.read import read_transcript_lines
from onlooker.mcp.transcript_roots import transcript_roots
from onlooker.memory import Memories
from onlooker.memory._memories import Extracted
from onlooker.memory._vector_search import memory_vectors
from onlooker.store import ObservationsTool, Store, project_for

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
STARTS = 7
CALLS = 100
ITEMS = 10_000
MEMORIES = 2_000
"""Memories stored (and embedded: about 3 ms each); memory search at 100k is bench_search's."""
TRANSCRIPT_BYTES = 1_000_000
TARGET_START_S = 5.0
TARGET_LISTED_MS = 100.0
TARGET_CALL_P50_MS = 50.0
WORDS = ("token refresh", "retry loop", "path traversal", "flaky test", "slow query",
         "cache eviction", "schema migration", "rate limit")  # fmt: skip


def fill(home: Path, items: int, memory_count: int, project: str) -> None:
    """`items` findings and `memory_count` memories over a few projects and files."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with Store(home) as store:
        tool = ObservationsTool(store, project=project)
        for first in range(0, items, 1_000):
            batch = [
                {"observer": "review", "content": f"{WORDS[n % len(WORDS)]} in module {n}",
                 "source_ref": f"src/module_{n % 300}.py:{n}"}
                for n in range(first, min(first + 1_000, items))
            ]  # fmt: skip
            tool({"operation": "create_batch", "observations": batch})
        memories = Memories(store)
        vectors = memory_vectors(store)
        for first in range(0, memory_count, 500):
            found = [
                Extracted(f"{WORDS[n % len(WORDS)]} #{n}", f"What happened with {WORDS[n % 8]} "
                          f"in src/module_{n % 300}.py, case {n}.", start + timedelta(minutes=n),
                          (f"src/module_{n % 300}.py",))
                for n in range(first, min(first + 500, memory_count))
            ]  # fmt: skip
            stored = memories.remember(found, project=f"p{first % 4}", session_id=f"s{first}")
            if vectors is not None:
                vectors.embed([memory.id for memory in stored])


def transcript(folder: Path, size: int) -> Path:
    """A Claude Code transcript of about `size` bytes: prompts, tool calls and results."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "big.jsonl"
    lines, written, n = [], 0, 0
    while written < size:
        n += 1
        use = {
            "type": "tool_use",
            "id": f"t{n}",
            "name": "Bash",
            "input": {"command": f"pytest -k case_{n}"},
        }
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "passed\n" * 40}
        rows = (
            {"type": "assistant", "message": {"role": "assistant", "content": [use]}},
            {"type": "user", "message": {"role": "user", "content": [result]}},
        )  # fmt: skip
        for row in rows:
            lines.append(json.dumps(row))
            written += len(lines[-1]) + 1
    path.write_text("\n".join(lines) + "\n")
    return path


def milliseconds(samples: list[float]) -> str:
    return f"p50 {statistics.median(samples) * 1000:.1f} ms"


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20)[18] * 1000 if len(samples) > 1 else samples[0] * 1000


async def start_to_first_answer(env: dict[str, str], project: Path) -> tuple[float, float, float]:
    """Seconds from spawning the server to its tools listed (initialize and tools/list, what a
    client waits for before its session starts), to its first tool answer, and to its first
    search answer (which loads the embedding model when the extra is installed)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=ONLOOKER, args=["mcp"], env=env, cwd=project)
    began = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        listed = time.perf_counter() - began
        await session.call_tool("observations", {"operation": "list", "limit": 1})
        first = time.perf_counter() - began
        await session.call_tool("search", {"query": "retry loop"})
        return listed, first, time.perf_counter() - began


async def per_call(
    env: dict[str, str], big: Path, rounds: int, project: Path
) -> dict[str, list[float]]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=ONLOOKER, args=["mcp"], env=env, cwd=project)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        hits = await session.call_tool("search", {"query": "retry loop", "limit": 20})
        assert isinstance(hits.structured_content, dict)
        ids = [hit["id"] for hit in hits.structured_content["results"]]
        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            "search (hybrid, both kinds, top 10)": lambda: session.call_tool(
                "search", {"query": "token refresh", "limit": 10}
            ),
            "search (text, both kinds, top 10)": lambda: session.call_tool(
                "search", {"query": "token refresh", "limit": 10, "mode": "text"}
            ),
            "search with filters": lambda: session.call_tool(
                "search",
                {
                    "query": "slow query",
                    "projects": ["p1", project_for(str(project))],
                    "files": ["module_7.py"],
                    "after": "2026-01-02",
                },
            ),
            "get_observations (20 ids)": lambda: session.call_tool(
                "get_observations", {"ids": ids[:20]}
            ),
            "observations list, limit 20": lambda: session.call_tool(
                "observations", {"operation": "list", "limit": 20}
            ),
            "read 200 lines of a 1 MB transcript": lambda: session.call_tool(
                "read", {"path": str(big), "startLine": 2000, "endLine": 2199}
            ),
        }
        spent: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(rounds):
            for name, call in calls.items():
                began = time.perf_counter()
                result = await call()
                spent[name].append(time.perf_counter() - began)
                assert not result.is_error, (name, result.content)
        return spent


def redaction_share(big: Path, home: Path) -> tuple[float, float, float]:
    """Seconds for in-process reads of 500 lines with and without redaction, and for redacting
    the whole 1 MB file at once."""
    from onlooker.text.redact import redact

    roots = transcript_roots(home)

    def once() -> float:
        began = time.perf_counter()
        read_transcript_lines(str(big), roots, start_line=1, end_line=500)
        return time.perf_counter() - began

    with_redaction = statistics.median(once() for _ in range(9))
    real = read_module.redact
    read_module.redact = lambda text: text  # type: ignore[assignment]
    try:
        without = statistics.median(once() for _ in range(9))
    finally:
        read_module.redact = real  # type: ignore[assignment]
    text = big.read_text()
    began = time.perf_counter()
    redact(text)
    return with_redaction, without, time.perf_counter() - began


def run(
    items: int = ITEMS, calls: int = CALLS, starts: int = STARTS, memories: int = MEMORIES
) -> list[Result]:
    import anyio

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home, claude = root / "home", root / "claude"
        env = {"ONLOOKER_HOME": str(home), "CLAUDE_CONFIG_DIR": str(claude)}
        big = transcript(claude / "projects" / "-bench", TRANSCRIPT_BYTES)
        project = root / "bench"  # the folder the server runs in, as Claude Code starts it
        (project / ".onlooker").mkdir(parents=True)
        started = [anyio.run(start_to_first_answer, env, project) for _ in range(starts)]
        bare, bare_python = [], []
        for _ in range(starts):
            began = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import mcp.server.stdio"], check=True)
            bare.append(time.perf_counter() - began)
            began = time.perf_counter()
            subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)
            bare_python.append(time.perf_counter() - began)
        fill(home, items, min(memories, items), project_for(str(project)))
        spent = anyio.run(per_call, env, big, calls, project)
        os.environ.update(env)
        with_redaction, without, whole = redaction_share(big, home)
    listed = statistics.median(listed for listed, _, _ in started)
    python = statistics.median(bare_python)
    start = statistics.median(first for _, first, _ in started)
    results = [
        Result(
            "start to tools listed",
            f"{listed * 1000:.0f} ms",
            f"spawn to initialize and tools/list answered (real mcp client); median of {starts}, "
            f"{min(s[0] for s in started) * 1000:.0f}-{max(s[0] for s in started) * 1000:.0f} ms "
            f"(target ≤ {TARGET_LISTED_MS:g} ms); a bare `python -I -c pass`: "
            f"{python * 1000:.0f} ms",
            listed * 1000 <= TARGET_LISTED_MS,
        ),
        Result(
            "start to first answer",
            f"{start:.2f} s",
            f"spawn, initialize, tools/list, one observations call (loads the SDK); median of "
            f"{starts} (target ≤ "
            f"{TARGET_START_S:g} s); bare `import mcp.server.stdio` "
            f"{statistics.median(bare):.2f} s",
            start <= TARGET_START_S,
        ),
        Result(
            "start to first search answer",
            f"{statistics.median(search for _, _, search in started):.2f} s",
            "the first search loads the embedding model (when installed)",
        ),
    ]
    stored = min(memories, items)
    for name, samples in spent.items():
        p50 = statistics.median(samples) * 1000
        results.append(
            Result(
                name,
                milliseconds(samples),
                f"p95 {p95(samples):.1f} ms over stdio, {items:,} findings + {stored:,} memories "
                f"(target p50 ≤ {TARGET_CALL_P50_MS:g} ms)",
                p50 <= TARGET_CALL_P50_MS,
            )
        )
    results.append(
        Result(
            "read 500 lines in-process",
            f"{with_redaction * 1000:.1f} ms",
            f"{without * 1000:.1f} ms without redaction ({1 - without / with_redaction:.0%} is "
            f"redaction); redacting the whole 1 MB at once: {whole * 1000:.0f} ms",
        )
    )
    return results


if __name__ == "__main__":  # python -m benchmarks.bench_mcp [ITEMS [CALLS [STARTS]]]
    for result in run(*(int(a) for a in sys.argv[1:4])):
        print(f"  {result.name:<40} {result.value:>18}  {result.note}")
