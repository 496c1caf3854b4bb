"""The hook service's answer times: one line per hook, rotated past 256 KiB, read back as p50 and
p95 over the newest hooks across the rotation."""

from __future__ import annotations

from pathlib import Path

from onlooker.daemon.hook_times import ROTATE_AT, TIMES_FILE, HookTimes, hook_latency


def test_times_are_kept_rotated_and_read_back_as_percentiles(tmp_path: Path) -> None:
    assert hook_latency(tmp_path)["hooks"] == 0
    times = HookTimes(tmp_path)
    for n in range(100):
        times.record((n + 1) / 1000, answered=n % 10 != 0)  # 1..100 ms, every tenth unanswered
    figures = hook_latency(tmp_path)
    assert (figures["hooks"], figures["failed"]) == (100, 10)
    assert figures["p50_ms"] == 50.5 and figures["p95_ms"] == 95.0
    lines = 0
    while (tmp_path / TIMES_FILE).with_name("hook-times.log.1").exists() is False:
        times.record(0.002)
        lines += 1
        assert lines < ROTATE_AT  # rotates long before
    times.record(0.004)
    times.close()
    assert (tmp_path / TIMES_FILE).read_text().count("\n") == 1  # a fresh file after rotating
    assert hook_latency(tmp_path, limit=3)["p50_ms"] == 2.0
    assert hook_latency(tmp_path, limit=1)["p50_ms"] == 4.0
