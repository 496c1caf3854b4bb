"""Redaction before and after the secrets corpus, side by side in one run.

(a) corpus: shapes of tests/fixtures/redaction/secrets.json caught, controls left untouched;
(b) throughput on 2 kB pieces (what the hook path redacts) and on 1 MB (an MCP read, a spool);
(c) the slowest megabyte built from one repeated piece (the before module is quadratic there).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import _redact_before as before
from benchmarks.measure import Result
from onlooker.text import redact as after

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fixtures" / "redaction"
Redact = Callable[[str], str]


def _texts() -> dict[str, str]:
    code = "\n".join(
        path.read_text() for path in sorted((ROOT / "src" / "onlooker").rglob("*.py"))
        if "text" not in path.parts
    )  # fmt: skip
    prose = "\n".join(path.read_text() for path in sorted((ROOT / "specs").glob("*.md")))
    transcript = (ROOT / "examples" / "transcripts" / "flaky-tests.jsonl").read_text()
    return {"code": code, "prose": prose, "transcript": transcript}


def _pieces_rate(redact: Redact, text: str) -> float:
    """MB/s over 2 kB pieces (best of 3)."""
    pieces = [text[at : at + 2000] for at in range(0, min(len(text), 200_000), 2000)]
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for piece in pieces:
            redact(piece)
        best = min(best, time.perf_counter() - started)
    return sum(map(len, pieces)) / best / 1e6


def _megabyte_seconds(redact: Redact, text: str) -> float:
    big = (text * (1 + 1_000_000 // len(text)))[:1_000_000]
    started = time.perf_counter()
    redact(big)
    return time.perf_counter() - started


def run() -> list[Result]:
    secrets = json.loads((CORPUS / "secrets.json").read_text())
    controls = json.loads((CORPUS / "controls.json").read_text())
    results = []
    for label, redact in (("before", before.redact), ("after", after.redact)):
        caught = sum(case["secret"] not in redact(case["text"]) for case in secrets)
        kept = sum(redact(case["text"]) == case["text"] for case in controls)
        complete = label == "before" or (caught, kept) == (len(secrets), len(controls))
        results.append(Result(f"{label}: shapes caught", f"{caught}/{len(secrets)}", "", complete))
        untouched = f"{kept}/{len(controls)}"
        results.append(Result(f"{label}: controls untouched", untouched, "", complete))
    for name, text in _texts().items():
        old, new = _pieces_rate(before.redact, text), _pieces_rate(after.redact, text)
        results.append(Result(f"2 kB pieces of {name}", f"{old:.1f} -> {new:.1f} MB/s",
                              f"after/before {new / old:.2f}x"))  # fmt: skip
        old_s, new_s = _megabyte_seconds(before.redact, text), _megabyte_seconds(after.redact, text)
        results.append(
            Result(f"1 MB of {name}", f"{old_s * 1000:.0f} -> {new_s * 1000:.0f} ms", "")
        )
    worst = {"pw: ": 0.0, "password=$x ": 0.0, "sig=/": 0.0, "mysql -pX ": 0.0, "s." * 13: 0.0}
    for unit in worst:
        worst[unit] = _megabyte_seconds(after.redact, unit)
    unit, seconds = max(worst.items(), key=lambda item: item[1])
    results.append(Result("slowest adversarial 1 MB (after)", f"{seconds * 1000:.0f} ms",
                          f"{unit!r} repeated; target < 1 s", seconds < 1.0))  # fmt: skip
    started = time.perf_counter()
    before.redact("password" * 2_500)  # 20 kB: enough to show the old quadratic shape
    old_20k = time.perf_counter() - started
    results.append(Result("before: 20 kB of 'password' repeated", f"{old_20k * 1000:.0f} ms",
                          "quadratic: 2,500x that for 1 MB"))  # fmt: skip
    return results
