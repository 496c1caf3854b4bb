"""A job handler slower than a short lease: notes each run in the payload's log file, then sleeps."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any


def handle(job: Any, ctx: Any) -> None:
    with Path(job.payload["log"]).open("a") as log:
        log.write(f"{job.id} attempt {job.attempts}\n")
    time.sleep(job.payload["seconds"])
