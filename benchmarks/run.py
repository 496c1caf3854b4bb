"""Run every benchmark and print its figures: `make bench` (or `python benchmarks/run.py`).

To add one: write `benchmarks/bench_<name>.py` with `run() -> list[Result]` and list it below.
Exits 1 when a figure missed its target.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

#: benchmark module (under benchmarks/) -> what it measures
BENCHMARKS: dict[str, str] = {
    "bench_replay": "replay throughput vs bare json.loads",
    "bench_precision": "rule observers: recall, precision on labeled sessions; real-session rate",
    "bench_context": "what the agent hears per 100 calls: messages, characters, duplicates, ids",
    "bench_hook": "Claude Code hook latency vs bare python start-up; call 5000 vs call 10",
    "bench_hookd_load": "hook service under load: head of line, 16 busy sessions, vs one at a time",
    "bench_hookd_kills": "hook service and worker SIGKILLed 35 and 20 times: nothing twice or lost",
    "bench_config": "config: cold load of the complete example; cached hook lookup vs a bare stat",
    "bench_plugins": "plugins: first config load with and without a plugin observer; cached lookup",
    "bench_store": "store: create_batch throughput; list, search, one create at 100k findings",
    "bench_review": "10 reviewers at latency L: parallel vs serial; 100k-file rehash vs git",
    "bench_git_state": "reviewers' change detection in a 100k-file git tree vs git status",
    "bench_schema": "schema checks: jsonschema vs the hand-written checks, per check and per call",
    "bench_vectors": "vectors: model load, embeddings/s, top-k search at 100k per backend",
    "bench_search": "memory search p50 at 100k memories: text, vector, hybrid",
    "bench_memory": "memory extraction: model calls and input tokens per 100 tool events",
    "bench_memory_quality": "memory with no model on 10 labeled sessions: recall, contradictions",
    "bench_mcp": "MCP server: start to first answer; search, get, list, read latency over stdio",
    "bench_claude_code": "the real Claude Code CLI with and without onlooker: session, tool call",
    "bench_redact": "redaction before/after issue 26: families corpus, controls, ms per 10 kB",
    "bench_improvement": "instruction files: apply and rollback latency vs a bare atomic write",
    "bench_report": "report of 1,000 sessions and 100k findings: generation, size, Chromium load",
    "bench_serve": "viewer: first paint at 1,000 sessions/100k events; hook with 10 tabs vs none",
    "bench_store_backends": "store backends: PostToolUse hook and Store ops, PostgreSQL vs SQLite",
    "bench_scoring": "scoring: judge calls per 100 sessions, tokens per detail level, apply time",
}


def main(names: list[str]) -> int:
    root = Path(__file__).resolve().parent
    sys.path.insert(0, str(root.parent))
    chosen = names or list(BENCHMARKS)
    unknown = [name for name in chosen if name not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
        return 2
    missed = 0
    for name in chosen:
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"{name}: {BENCHMARKS[name]}")
        results = module.run()
        width = max(len(r.name) for r in results)
        for result in results:
            print(f"  {result.name.ljust(width)}  {result.value:>18}  {result.note}")
            missed += not result.ok
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
