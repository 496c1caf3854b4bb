"""The hook service warms redaction once it is idle (daemon/hookd.py, text/redact.py `warm`)."""

from __future__ import annotations

import time
from pathlib import Path

from hook_runner import warm_service


def test_the_service_warms_redaction_once_idle_for_a_second(onlooker_home: Path) -> None:
    warm_service(onlooker_home)
    log = onlooker_home / "logs" / "hookd.log"
    deadline = time.monotonic() + 30
    while "redaction warmed" not in log.read_text():
        assert time.monotonic() < deadline, log.read_text()[-2000:]
        time.sleep(0.05)
    time.sleep(1.5)  # idle on: warmed once only
    assert log.read_text().count("redaction warmed") == 1
