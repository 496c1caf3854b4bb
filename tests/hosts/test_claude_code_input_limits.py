"""Nothing a hook input holds breaks the handler: past a limit (size, depth, values, integer
digits) it is refused, logged and spooled with the limit named, and the next hook is answered."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from onlooker.errors import HookInputOverLimit
from onlooker.hosts.claude_code.hook import HookHandler
from onlooker.hosts.claude_code.input_limits import (
    MAX_DEPTH,
    MAX_INPUT_BYTES,
    MAX_VALUES,
    check_limits,
    load_limited,
)
from onlooker.store import Store

BASE = (
    '{"session_id": "s-limits", "cwd": "/work/app", "hook_event_name": "PostToolUse", '
    '"tool_name": "mcp__x__y", "tool_use_id": "toolu_1", "tool_input": {"q": "DB_PASS=Zq8v!mR2pL"}, '
)


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


HOSTILE = {
    "an integer of 4,301 digits": (BASE + '"tool_response": ' + "9" * 4301 + "}", "digits"),
    "JSON nested 990 levels": (BASE + '"tool_response": ' + "[" * 990 + "]" * 990 + "}", "nested"),
    "JSON nested 100,000 levels": (BASE + '"tool_response": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested"),
    "a dict nested 500 deep": (BASE + '"tool_response": ' + json.dumps(nested(500)) + "}", "nested"),
    "200,000 keys": (BASE + '"tool_response": ' + json.dumps(dict.fromkeys(map(str, range(200_000)), 0)) + "}", "values"),
    "9 MB of input": (BASE + '"tool_response": "' + "a" * 9_000_000 + '"}', "bytes"),
    "an infinite duration": (BASE + '"duration_ms": 1e999, "tool_response": "x"}', "finite"),
}  # fmt: skip


SLOW = 2.0
"""Seconds the handler may take to refuse an input (the large ones are spooled in the background)."""
TRIES = 3
"""Times an input is tried before it counts as slow: an input that makes the handler slow is slow
each time; a machine busy with other tests or other work stalls one try now and then."""


@pytest.fixture
def handler(tmp_path: Path) -> HookHandler:
    return HookHandler(Store(tmp_path / "home"), wake_worker=lambda home: None)


def refusal_seconds(handler: HookHandler, raw: str) -> float:
    started = time.perf_counter()
    assert handler.handle(raw.encode()) == b""
    return time.perf_counter() - started


@pytest.mark.parametrize(("raw", "named"), HOSTILE.values(), ids=list(HOSTILE))
def test_hostile_input_is_refused_logged_and_spooled(
    handler: HookHandler, raw: str, named: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "onlooker.hook")
    seconds = refusal_seconds(handler, raw)
    for n in range(TRIES - 1):  # again with a handler of its own, so this one spools it once
        if seconds < SLOW:
            break
        with Store(handler.store.home.parent / f"again-{n}") as store:
            seconds = min(
                seconds, refusal_seconds(HookHandler(store, wake_worker=lambda home: None), raw)
            )
    assert seconds < SLOW
    spool = handler.store.home / "spool" / "refused"  # over a limit: it can never go through
    deadline = time.monotonic() + 30  # a large input is spooled in the background
    while not list(spool.glob("*.hook")) and time.monotonic() < deadline:
        time.sleep(0.02)
    [kept] = [path.read_bytes() for path in spool.glob("*.hook")]
    reason, _, body = kept.partition(b"\n")
    assert named.encode() in reason and named in caplog.text
    assert b"Zq8v!mR2pL" not in kept and body.startswith(b'{"session_id": "s-limits"')
    ok = BASE + '"tool_response": "fine"}'
    handler.handle(ok.encode())  # the handler still works
    assert handler.store.home.joinpath("journals").exists()


def test_an_input_at_the_limits_is_taken(handler: HookHandler) -> None:
    response = {"deep": nested(MAX_DEPTH - 2), "n": int("9" * 30), "many": list(range(50_000))}
    raw = BASE + '"tool_response": ' + json.dumps(response) + "}"
    assert len(raw) < MAX_INPUT_BYTES
    handler.handle(raw.encode())
    assert not (handler.store.home / "spool").exists()


def test_the_limits() -> None:
    check_limits(nested(MAX_DEPTH))
    with pytest.raises(HookInputOverLimit, match=f"deeper than {MAX_DEPTH} levels"):
        check_limits(nested(MAX_DEPTH + 1))
    with pytest.raises(HookInputOverLimit, match="more than 100,000 values"):
        check_limits([0] * MAX_VALUES)
    assert load_limited("-" + "1" * 30) == -int("1" * 30)
    with pytest.raises(HookInputOverLimit, match="31 digits; at most 30"):
        load_limited("1" * 31)


def test_any_failure_while_handling_is_an_empty_answer_and_a_spooled_input(
    handler: HookHandler, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure nobody foresaw, even in parsing, is logged and spooled; the hook answers."""

    def broken(*args: object) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("onlooker.hosts.claude_code.hook.parse_hook_input", broken)
    assert handler.handle((BASE + '"tool_response": "x"}').encode()) == b""
    [kept] = (handler.store.home / "spool").glob("*.hook")
    assert kept.read_bytes().startswith(b"# RecursionError: maximum recursion depth exceeded\n")
