"""`onlooker serve` as a command: it listens on 127.0.0.1 and says where; one per data home (a
second one names the first one's address and exits 2); stopped, it lets go of lock and address."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from viewer import ONLOOKER, running_viewer

from onlooker.serve import running_viewer as announced


def test_one_viewer_per_data_home_and_the_second_says_where(onlooker_home: Path) -> None:
    with running_viewer() as first:
        assert first.url.startswith("http://127.0.0.1:")
        assert announced(onlooker_home) == {"url": first.url, "pid": first.process.pid}
        status, page = first.request("GET", "/")
        assert status == 200 and "<title>onlooker — live</title>" in page

        second = subprocess.run([ONLOOKER, "serve", "--no-open"], capture_output=True,
                                timeout=60)  # fmt: skip
        assert second.returncode == 2
        assert f"already runs for {onlooker_home} at {first.url}" in second.stderr.decode()
    assert first.process.returncode == 0
    assert announced(onlooker_home) == {}
    with running_viewer() as again:  # the lock was let go
        assert again.url.startswith("http://127.0.0.1:")


def test_a_port_in_use_is_refused_naming_the_option(onlooker_home: Path) -> None:
    with running_viewer() as first:
        other = onlooker_home.parent / "other-home"
        taken = subprocess.run(
            [ONLOOKER, "serve", "--no-open", "--port", str(first.port)], capture_output=True,
            timeout=60, env={**os.environ, "ONLOOKER_HOME": str(other)},
        )  # fmt: skip
        assert taken.returncode == 2
        assert (
            f"--port {first.port}: cannot listen on 127.0.0.1:{first.port}" in taken.stderr.decode()
        )
