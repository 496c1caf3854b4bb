"""Redaction before and after issue 26 (the families corpus), side by side in one run.

`benchmarks/_redact_main/` is onlooker/text/ as it was before (frozen); `onlooker.text.redact`
is today's. (a) both corpora: secrets leaked per family, controls changed; (b) throughput on
10 kB pieces (what the hook path redacts), as ms per 10 kB and MB/s, with the ratio; (c) 1 MB
(an MCP read, a spool); (d) the slowest megabyte built from one repeated piece. The budget of
1 ms per 10 kB is judged on the redacting thread's CPU time, which other processes on a shared
machine do not inflate as they do wall time.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks._redact_main import redact as before
from benchmarks.measure import Result
from onlooker.text import redact as after

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fixtures" / "redaction"
Redact = Callable[[str], str]
#: The hook path's budget: 1 ms per 10 kB.
BUDGET_MS = 1.0


def _families() -> ModuleType:
    sys.path.insert(0, str(ROOT / "tests" / "text"))
    try:
        import carriers  # noqa: F401 - loaded for _corpus below
        import families_corpus
    finally:
        sys.path.pop(0)
    return families_corpus


def _texts() -> dict[str, str]:
    code = "\n".join(
        path.read_text() for path in sorted((ROOT / "src" / "onlooker").rglob("*.py"))
        if "text" not in path.parts
    )  # fmt: skip
    prose = "\n".join(path.read_text() for path in sorted((ROOT / "specs").glob("*.md")))
    transcript = (ROOT / "examples" / "transcripts" / "flaky-tests.jsonl").read_text()
    return {"code": code, "prose": prose, "transcript": transcript}


def _ms_per_10k(redact: Redact, text: str, clock: Callable[[], float] = time.perf_counter) -> float:
    """Milliseconds per 10 kB piece over up to 30 pieces, by `clock`: wall time (best of 5), or
    the thread's CPU time (`time.thread_time`, median of 15), which other processes on a busy
    machine do not inflate."""
    pieces = [text[at : at + 10_000] for at in range(0, min(len(text), 300_000), 10_000)]
    cpu = clock is time.thread_time
    times = []
    for _ in range(15 if cpu else 5):
        started = clock()
        for piece in pieces:
            redact(piece)
        times.append(clock() - started)
    taken = statistics.median(times) if cpu else min(times)
    return taken / len(pieces) * 1000 * 10_000 / (sum(map(len, pieces)) / len(pieces))


_TRIVIAL = re.compile("zq")


def _floor(piece: str) -> None:
    """What no redaction can beat: one pass of the regular expression engine over the text."""
    for _ in _TRIVIAL.finditer(piece):
        pass


def _megabyte_seconds(
    redact: Redact, text: str, clock: Callable[[], float] = time.perf_counter
) -> float:
    big = (text * (1 + 1_000_000 // len(text)))[:1_000_000]
    started = clock()
    redact(big)
    return clock() - started


def _corpus(module: Any, families: ModuleType) -> tuple[Counter[str], int, int, int]:
    """(leaks per family, controls changed, first corpus caught, first corpus controls kept)."""
    import carriers

    leaks: Counter[str] = Counter()
    for case in families.CASES:
        payload = carriers.hook_input(case.carrier, case.text, case.command)
        out = json.dumps(module.redact_value(payload))
        if not case.command:
            out += "\n" + module.redact(case.text)
        if any(s in out or json.dumps(s)[1:-1] in out for s in case.secrets):
            leaks[case.family] += 1
    changed = 0
    for control in families.CONTROLS:
        payload = carriers.hook_input(control.carrier, control.text)
        if module.redact(control.text) != control.text or module.redact_value(payload) != payload:
            changed += 1
    secrets = json.loads((CORPUS / "secrets.json").read_text())
    controls = json.loads((CORPUS / "controls.json").read_text())
    caught = sum(case["secret"] not in module.redact(case["text"]) for case in secrets)
    kept = sum(module.redact(case["text"]) == case["text"] for case in controls)
    return leaks, changed, caught, kept


def run() -> list[Result]:
    families = _families()
    sizes = Counter(case.family for case in families.CASES)
    results = []
    (old, old_changed, old_caught, old_kept), (new, new_changed, new_caught, new_kept) = (
        _corpus(before, families), _corpus(after, families),
    )  # fmt: skip
    for family, size in sizes.items():
        results.append(Result(f"leaks: {family} ({size})", f"{old[family]} -> {new[family]}",
                              "", new[family] == 0))  # fmt: skip
    total = len(families.CASES)
    results.append(Result(f"leaks: all families ({total})",
                          f"{sum(old.values())} -> {sum(new.values())}", "", not new))  # fmt: skip
    results.append(Result(f"controls changed ({len(families.CONTROLS)})",
                          f"{old_changed} -> {new_changed}", "", new_changed == 0))  # fmt: skip
    secrets = json.loads((CORPUS / "secrets.json").read_text())
    controls = json.loads((CORPUS / "controls.json").read_text())
    first = (
        f"{old_caught}/{len(secrets)} {old_kept}/{len(controls)} -> "
        f"{new_caught}/{len(secrets)} {new_kept}/{len(controls)}"
    )
    results.append(Result("first corpus: caught / controls kept", first))
    for name, text in _texts().items():
        old_ms, new_ms = _ms_per_10k(before.redact, text), _ms_per_10k(after.redact, text)
        old_cpu = _ms_per_10k(before.redact, text, time.thread_time)
        new_cpu = _ms_per_10k(after.redact, text, time.thread_time)
        results.append(Result(
            f"10 kB pieces of {name}", f"{old_ms:.2f} -> {new_ms:.2f} ms",
            f"{10 / old_ms:.1f} -> {10 / new_ms:.1f} MB/s; after/before {new_ms / old_ms:.2f}x; "
            f"CPU {old_cpu:.2f} -> {new_cpu:.2f} ms ({new_cpu / old_cpu:.2f}x); "
            f"budget {BUDGET_MS} ms of CPU", new_cpu <= BUDGET_MS,
        ))  # fmt: skip
        old_s, new_s = _megabyte_seconds(before.redact, text), _megabyte_seconds(after.redact, text)
        old_c = _megabyte_seconds(before.redact, text, time.thread_time)
        new_c = _megabyte_seconds(after.redact, text, time.thread_time)
        results.append(Result(
            f"1 MB of {name}", f"{old_s * 1000:.0f} -> {new_s * 1000:.0f} ms",
            f"CPU {old_c * 1000:.0f} -> {new_c * 1000:.0f} ms ({new_c / old_c:.2f}x)",
        ))  # fmt: skip
        floor_cpu = _ms_per_10k(_floor, text, time.thread_time)
        results.append(Result(
            f"floor for {name}", f"{floor_cpu * 1000:.1f} us",
            f"one re.finditer pass of a trivial pattern (CPU); after: {new_cpu / floor_cpu:.0f}x",
        ))  # fmt: skip
    worst = {unit: 0.0 for unit in ("pw: ", "password=$x ", "sig=/", "mysql -pX ", "s." * 13,
                                     "a is the password ", "Authorization: Token x ")}  # fmt: skip
    for unit in worst:
        worst[unit] = _megabyte_seconds(after.redact, unit)
    unit, seconds = max(worst.items(), key=lambda item: item[1])
    results.append(Result("slowest adversarial 1 MB (after)", f"{seconds * 1000:.0f} ms",
                          f"{unit!r} repeated; target < 5 s", seconds < 5.0))  # fmt: skip
    return results
