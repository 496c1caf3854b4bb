"""`onlooker serve` at scale, in a real headless Chromium: first meaningful paint (sessions listed,
findings and charts drawn) on a data home of 1,000 sessions and 100,000 journaled events; how soon
a hook's event reaches an open page; and PostToolUse hook latency with 10 tabs streaming the live
feed against none (interleaved phases: none, 10 tabs, none)."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from onlooker.core.assessment import SEVERITIES, Assessment, Finding
from onlooker.core.events import SessionStarted, ToolCall, UserPrompt
from onlooker.core.records import Record
from onlooker.daemon.hookd import running_pid
from onlooker.hosts.claude_code.install import hook_command
from onlooker.store import Store, project_for
from onlooker.testing.browser import HeadlessChromium

from .measure import Result, report

SESSIONS = 1_000
EVENTS_PER_SESSION = 100
FINDINGS_PER_SESSION = 10
TABS = 10
ROUNDS = 40
TARGET_PAINT_MS = 1_000.0
TARGET_LIVE_MS = 1_000.0
TARGET_HOOK_RATIO = 1.15
SETTLE = 15.0
"""Seconds for 10 tabs to load their first data on 2 shared cores before hooks are timed."""
START = datetime(2026, 1, 1, tzinfo=UTC)
OBSERVERS = ("Stall", "Error Cascade", "Drift", "Security Reviewer")


def session_records(n: int) -> list[Record]:
    at = START + timedelta(hours=n)
    sid = f"session-{n:04d}"
    records: list[Record] = [
        SessionStarted(session_id=sid, seq=1, at=at, project="bench"),
        UserPrompt(session_id=sid, seq=2, at=at, text=f"task {n}"),
    ]
    i = 0
    while len(records) < EVENTS_PER_SESSION:
        i += 1
        when = at + timedelta(seconds=20 * i)
        records.append(ToolCall(session_id=sid, seq=2 + i, at=when, tool="Bash", index=i,
                                input={"command": "pytest"}, output="ok " * 20,
                                ok=i % 7 != 0, error=None if i % 7 else "exit 1"))  # fmt: skip
        if i % 10 == 0:
            records.append(Assessment(observer_name="Stall", summary="Same command again.",
                                      severity="high", timestamp=when, call_index=i))  # fmt: skip
    return records


def fill(store: Store, project: str) -> None:
    for n in range(SESSIONS):
        sid = f"session-{n:04d}"
        store.append(session_records(n), project=project, session_id=sid)
        at = START + timedelta(hours=n)
        store.create([
            Finding(content=f"finding {n}-{k}: the same test fails again",
                    observer=OBSERVERS[k % len(OBSERVERS)],
                    severity=SEVERITIES[k % len(SEVERITIES)],
                    created_at=at + timedelta(seconds=k))
            for k in range(FINDINGS_PER_SESSION)
        ], project=project, session_id=sid)  # fmt: skip


def payload(session: str, n: int, cwd: str) -> bytes:
    return json.dumps({
        "session_id": session, "transcript_path": f"/bench/{session}.jsonl", "cwd": cwd,
        "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": f"{cwd}/src/module_{n % 40}.py"},
        "tool_response": {"type": "text", "file": {"content": "x = 1\n" * 20}},
        "tool_use_id": f"toolu_{session}_{n}", "duration_ms": 4,
    }).encode()  # fmt: skip


def timed_hook(command: str, data: bytes) -> float:
    began = time.perf_counter()
    subprocess.run(command, input=data, stdout=subprocess.DEVNULL, check=True, shell=True)
    return time.perf_counter() - began


def connections(port: int) -> int:
    """Established connections to the viewer's port (Linux's /proc/net/tcp): its streams (the
    tabs of one browser share one; the others follow it over a BroadcastChannel)."""
    lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for line in lines
               if line.split()[1].endswith(f":{port:04X}") and line.split()[3] == "01")  # fmt: skip


def drain(port: int, stop: threading.Event, counts: list[int], n: int) -> None:
    """One raw event stream read to the end, counting its messages (a tab's worth of work for
    the server without a browser's)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    connection.request("GET", "/events", headers={"Host": f"127.0.0.1:{port}"})
    answer = connection.getresponse()
    while not stop.is_set():
        try:
            line = answer.fp.readline()
        except TimeoutError:
            continue
        counts[n] += line.startswith(b"data: ")
    connection.close()


def paint_ms(browser: HeadlessChromium, url: str) -> float:
    """Navigation start to the sessions, findings and charts drawn (the page's own clock)."""
    browser.open(url, settle=0)
    return float(browser.evaluate(
        "window.onlookerReady.then(() => new Promise(r => { const t = () => "
        "document.querySelector('#sessions li') && document.querySelector('#findings tr') && "
        "document.querySelector('#charts figure') ? r(performance.now()) : setTimeout(t, 5); "
        "t(); }))"
    ))  # fmt: skip


def run() -> list[Result]:
    tmp = Path(tempfile.mkdtemp(prefix="onlooker-bench-serve-"))
    home, cwd = tmp / "home", tmp / "project"
    (cwd / ".git").mkdir(parents=True)
    env = {**os.environ, "ONLOOKER_HOME": str(home), "ONLOOKER_HOOKD_IDLE": "300"}
    os.environ.update(env)
    began = time.perf_counter()
    with Store(home) as store:
        fill(store, project_for(cwd))
    filled = time.perf_counter() - began
    command = hook_command()
    timed_hook(command, payload("live", 0, str(cwd)))  # starts the hook service
    viewer = subprocess.Popen(
        [str(Path(sys.executable).with_name("onlooker")), "serve", "--no-open"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    try:
        assert viewer.stdout is not None
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", viewer.stdout.readline().decode())
        assert found, "onlooker serve did not say where it listens"
        url = found.group(1)
        with HeadlessChromium() as browser:
            browser.open("about:blank")
            paints = [paint_ms(browser, url) for _ in range(4)][1:]  # the first warms the cache
            errors = browser.open(url).errors
            browser.evaluate("window.onlookerReady")
            live = []
            for n in range(5):
                browser.evaluate(
                    "window.arrived = null; window.onlookerFeed.addEventListener('message', e => {"
                    " if (window.arrived === null) window.arrived = Date.now(); }, {once: true})"
                )
                timed_hook(command, payload("live", 1 + n, str(cwd)))
                done = time.time() * 1000
                deadline = time.monotonic() + 5
                while browser.evaluate("window.arrived") is None and time.monotonic() < deadline:
                    time.sleep(0.005)
                arrived = browser.evaluate("window.arrived")
                live.append(float(arrived) - done if arrived is not None else 5000.0)
            quiet_before = [timed_hook(command, payload("live", 100 + i, str(cwd)))
                            for i in range(ROUNDS)]  # fmt: skip
            tabs = [browser.send("Target.createTarget", url=url)["targetId"] for _ in range(TABS)]
            time.sleep(SETTLE)  # every tab loaded (each reads the 1,000 sessions) and streaming
            pages = browser.send("Target.getTargets")["targetInfos"]
            assert sum(p["type"] == "page" and p["url"] == url for p in pages) >= TABS + 1
            streams = connections(int(url.rsplit(":", 1)[1].strip("/")))
            streaming = [timed_hook(command, payload("live", 200 + i, str(cwd)))
                         for i in range(ROUNDS)]  # fmt: skip
            for target in tabs:
                browser.send("Target.closeTarget", targetId=target)
            time.sleep(1)
            quiet_after = [timed_hook(command, payload("live", 300 + i, str(cwd)))
                           for i in range(ROUNDS)]  # fmt: skip
            port = int(url.rsplit(":", 1)[1].strip("/"))
            stop, counts = threading.Event(), [0] * TABS
            readers = [threading.Thread(target=drain, args=(port, stop, counts, n))
                       for n in range(TABS)]  # fmt: skip
            for reader in readers:
                reader.start()
            time.sleep(1)
            raw = [timed_hook(command, payload("live", 400 + i, str(cwd))) for i in range(ROUNDS)]
            time.sleep(0.5)
            stop.set()
            for reader in readers:
                reader.join()
    finally:
        viewer.send_signal(signal.SIGTERM)
        viewer.wait(timeout=15)
        if viewer.stdout is not None:
            viewer.stdout.close()
        pid = running_pid(home)
        if pid:
            os.kill(pid, signal.SIGTERM)
    paint = statistics.median(paints)
    quiet = statistics.median(quiet_before + quiet_after) * 1000
    busy = statistics.median(streaming) * 1000
    ratio = busy / quiet
    raw_ms = statistics.median(raw) * 1000
    worst_live = max(live)
    return [
        Result("data home filled", f"{filled:.1f} s",
               f"{SESSIONS} sessions, {SESSIONS * EVENTS_PER_SESSION:,} events, "
               f"{SESSIONS * FINDINGS_PER_SESSION:,} findings"),
        Result("first meaningful paint", f"{paint:.0f} ms",
               f"sessions, findings, charts drawn; median of 3 warm loads "
               f"({', '.join(f'{p:.0f}' for p in paints)}); target <= {TARGET_PAINT_MS:g} ms",
               paint <= TARGET_PAINT_MS),
        Result("hook to open page", f"{statistics.median(live):.0f} ms",
               f"median of 5, worst {worst_live:.0f} ms; target < {TARGET_LIVE_MS:g} ms",
               worst_live < TARGET_LIVE_MS),
        Result("hook, no tab open", f"{quiet:.1f} ms",
               f"median of {2 * ROUNDS}, installed command"),
        Result(f"hook, {TABS} tabs streaming", f"{busy:.1f} ms",
               f"median of {ROUNDS}; {streams} stream(s) open, shared by the {TABS + 1} tabs",
               streams >= 1),
        Result(f"{TABS} tabs / none", f"{ratio:.2f}x", f"target <= {TARGET_HOOK_RATIO}",
               ratio <= TARGET_HOOK_RATIO),
        Result(f"hook, {TABS} raw streams", f"{raw_ms:.1f} ms",
               f"median of {ROUNDS}; each stream got {min(counts)}-{max(counts)} messages",
               min(counts) >= ROUNDS),
        Result(f"{TABS} raw streams / none", f"{raw_ms / quiet:.2f}x",
               f"target <= {TARGET_HOOK_RATIO}", raw_ms / quiet <= TARGET_HOOK_RATIO),
        Result("console errors", str(len(errors)), "; ".join(errors)[:80], not errors),
    ]  # fmt: skip


if __name__ == "__main__":
    sys.exit(report(run()))
