"""Plugin tests: the example plugin installed in .venv, and packages written for one test.

A written package is a folder on sys.path (and $PYTHONPATH, for the processes a test starts) with
a `.dist-info` that declares its entry points, as pip would install it. Every hook service and
worker a test started is stopped when it ends; plugin groups are loaded afresh for each test.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from onlooker import plugins
from onlooker.daemon.worker import worker_pid

sys.path.insert(0, str(Path(__file__).parents[1] / "hook"))
from hook_runner import stop_service


@pytest.fixture(autouse=True)
def processes(monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Iterator[None]:
    monkeypatch.setenv("ONLOOKER_HOOKD_IDLE", "30")
    monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "2")
    for group in plugins.GROUPS:
        plugins.forget(group)
    yield
    for group in plugins.GROUPS:
        plugins.forget(group)
    stop_service(onlooker_home)
    pid = worker_pid(onlooker_home)
    if pid and pid > 0:
        os.kill(pid, signal.SIGTERM)


@pytest.fixture
def write_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Path]]:
    """`write_package(name, code, {group: hook})` installs a one-module package `name` whose
    entry point `name` in each group points at `module:hook`; the folder holding it is returned."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    paths = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    written: list[str] = []

    def write(name: str, code: str, hooks: dict[str, str]) -> Path:
        module = name.replace("-", "_")
        written.append(module)
        (site / f"{module}.py").write_text(code)
        info = site / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        lines = [f"[{group}]\n{name} = {module}:{hook}\n" for group, hook in hooks.items()]
        (info / "entry_points.txt").write_text("\n".join(lines))
        return site

    yield write
    for module in written:
        sys.modules.pop(module, None)
