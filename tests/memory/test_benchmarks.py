"""The memory benchmarks run (the search one small) and report every figure they promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from onlooker.vectors import embeddings

ROOT = Path(__file__).resolve().parents[2]


def run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.stderr == ""
    return done.stdout


def test_extraction_cost_meets_the_target() -> None:
    out = run(
        "from benchmarks.bench_memory import run\nfor r in run(): print(r.name, '|', r.value, '|', r.ok)"
    )
    line, tokens = out.splitlines()[:2]
    assert line.startswith("model calls per 100 tool events |") and line.endswith("True")
    assert 0 < float(line.split("|")[1]) <= 7
    assert tokens.startswith("input tokens per 100 tool events |") and tokens.endswith("True")
    assert 0 < float(tokens.split("|")[1].replace(",", "")) <= 4000


@pytest.mark.skipif(not embeddings.available(), reason="the embeddings extra is not installed")
def test_search_benchmark_runs_small() -> None:
    out = run(
        "from benchmarks.bench_search import main\n"
        "raise SystemExit(main(['300', '--queries', '4']))"
    )
    names = [line.split("  ")[1] for line in out.splitlines()]
    scopes = ("all", "project", "small project")
    assert names == [
        "300: build", "300: remember", "300: graph", "300: vector recall@10",
        "300: vector recall@30", "300: embed the query", "300: both, all, exact scan",
        *(f"300: {mode}, {scope}" for mode in ("text", "vector", "both") for scope in scopes),
        "1,000,000",
    ]  # fmt: skip


def test_the_labeled_set_has_no_contradiction_and_no_junk() -> None:
    out = run(
        "from benchmarks.bench_memory_quality import run, LABELS\nimport json\n"
        "print(len(json.loads(LABELS.read_text())['sessions']))\n"
        "for r in run(): print(r.name, '|', r.value, '|', r.ok)"
    )
    sessions, recall, contradictions, junk = out.splitlines()
    assert int(sessions) >= 10
    assert recall.startswith("recall of labeled facts |") and recall.endswith("True")
    assert contradictions == "contradictions | 0 | True"
    assert junk == "junk lines | 0 | True"
