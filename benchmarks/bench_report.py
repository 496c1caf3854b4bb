"""`onlooker report` at scale: a data home of 1,000 sessions and 100,000 findings, the report's
generation time and size, and its load time in a real headless Chromium next to a trivial page."""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from onlooker.core.assessment import SEVERITIES, Assessment, Finding
from onlooker.core.events import SessionStarted, ToolCall, UserPrompt
from onlooker.core.records import Record
from onlooker.report import render_html, report_from_store
from onlooker.store import Store
from onlooker.testing.browser import HeadlessChromium

from .measure import Result, report

SESSIONS = 1_000
FINDINGS_PER_SESSION = 100
CALLS_PER_SESSION = 40
OBSERVERS = ("stall", "error-cascade", "drift", "deadline", "Security Reviewer", "Code Quality")
TARGET_OPEN_MS = 2_000.0
TARGET_GENERATE_S = 10.0
TARGET_BYTES = 600_000
START = datetime(2026, 1, 1, tzinfo=UTC)


def session_records(n: int) -> list[Record]:
    at = START + timedelta(hours=n)
    sid = f"session-{n:04d}"
    records: list[Record] = [
        SessionStarted(session_id=sid, seq=1, at=at, project="bench"),
        UserPrompt(session_id=sid, seq=2, at=at, text=f"task {n}"),
    ]
    for i in range(1, CALLS_PER_SESSION + 1):
        when = at + timedelta(seconds=20 * i)
        records.append(ToolCall(session_id=sid, seq=2 + i, at=when, tool="Bash", index=i,
                                input={"command": "pytest"}, output="ok " * 50,
                                ok=i % 7 != 0, error=None if i % 7 else "exit 1"))  # fmt: skip
        if i % 10 == 0:
            records.append(Assessment(observer_name="stall", summary="Same command again.",
                                      severity="high", timestamp=when, call_index=i))  # fmt: skip
    return records


def fill(store: Store) -> None:
    for n in range(SESSIONS):
        sid = f"session-{n:04d}"
        store.append(session_records(n), project="bench", session_id=sid)
        at = START + timedelta(hours=n)
        store.create(
            [
                Finding(
                    content=f"finding {n}-{k}: the same test fails <b>again</b>",
                    observer=OBSERVERS[k % len(OBSERVERS)],
                    severity=SEVERITIES[k % len(SEVERITIES)],
                    evidence=f"calls {k}-{k + 3}",
                    created_at=at + timedelta(seconds=k),
                )
                for k in range(FINDINGS_PER_SESSION)
            ],
            project="bench",
            session_id=sid,
        )
        if n % 10 == 0:
            store.record_observer_run("Security Reviewer", session_id=sid, project="bench",
                                      status="ok", duration=3.0, model="openai:gpt-4o-mini",
                                      input_tokens=2000, output_tokens=300, cost_usd=0.0005,
                                      report="No new issues.")  # fmt: skip


def run() -> list[Result]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        began = time.perf_counter()
        with Store(home) as store:
            fill(store)
        filled = time.perf_counter() - began
        with Store(home) as store:
            began = time.perf_counter()
            data = report_from_store(store)
            collected = time.perf_counter() - began
            html = render_html(data)
            generated = time.perf_counter() - began
        page = Path(tmp) / "report.html"
        page.write_text(html, encoding="utf-8")
        trivial = Path(tmp) / "trivial.html"
        trivial.write_text("<!doctype html><title>t</title><p>trivial</p>", encoding="utf-8")
        with HeadlessChromium() as browser:
            browser.open(trivial.as_uri())  # warm the browser
            bare = min(browser.open(trivial.as_uri()).load_ms for _ in range(3))
            loads = [browser.open(page.as_uri()) for _ in range(3)]
            opened = min(load.load_ms for load in loads)
            errors = loads[-1].errors
    size = len(html.encode())
    return [
        Result("data home filled", f"{filled:.1f} s",
               f"{SESSIONS} sessions, {SESSIONS * FINDINGS_PER_SESSION} findings"),
        Result("report generated", f"{generated:.2f} s",
               f"collect {collected:.2f} s + render {generated - collected:.2f} s; target "
               f"< {TARGET_GENERATE_S:g} s", generated < TARGET_GENERATE_S),
        Result("report size", f"{size / 1000:.0f} KB", f"target < {TARGET_BYTES / 1000:g} KB",
               size < TARGET_BYTES),
        Result("opened in Chromium", f"{opened:.0f} ms",
               f"{opened / max(bare, 1):.1f}x a trivial page ({bare:.0f} ms); target "
               f"< {TARGET_OPEN_MS:g} ms", opened < TARGET_OPEN_MS),
        Result("console errors", str(len(errors)), "; ".join(errors)[:80], not errors),
    ]  # fmt: skip


if __name__ == "__main__":
    sys.exit(report(run()))
