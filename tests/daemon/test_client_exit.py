"""The hook process ends at once once it has answered (`client.leave`): what Python still buffers
is written, and nothing of the interpreter's teardown runs (about 1.4 ms of CPU per hook)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import onlooker

DAEMON = Path(onlooker.__file__).parent / "daemon"

LEAVING = f"""
import atexit, sys
sys.path.insert(0, {str(DAEMON)!r})
from client import leave
atexit.register(lambda: print("torn down", file=sys.stderr, flush=True))
sys.stdout.write("buffered answer")
sys.stderr.write("buffered note")
leave(3)
print("not reached")
"""


def test_leaving_writes_what_is_buffered_and_skips_the_teardown() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", LEAVING], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 3
    assert done.stdout == "buffered answer"
    assert done.stderr == "buffered note"  # no atexit handler ran: no teardown


def test_leaving_with_no_reader_left_on_stdout_still_ends_with_its_code() -> None:
    """Claude Code gave up on the hook and closed its end: writing what was buffered fails,
    and the hook still ends as it meant to."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", LEAVING], stdout=write_end,
            stderr=subprocess.PIPE, text=True, timeout=30,
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert done.returncode == 3
    assert done.stderr == "buffered note"
