"""Shared fixtures: a fixed clock, an isolated data home, the fixtures folder.

`make test` sets ONLOOKER_NO_SKIPS=1: it installs every extra, the local model and the embeddings,
so a test that skips there (a missing package, a model that did not install) fails the run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from onlooker import FixedClock

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture(autouse=True)
def onlooker_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own data home and Claude Code config folder, so nothing is written
    outside tmp."""
    home = tmp_path / "onlooker-home"
    monkeypatch.setenv("ONLOOKER_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    monkeypatch.delenv("ONLOOKER_STORE_URL", raising=False)  # never a developer's shared store
    return home


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[object]:
    """A real PostgreSQL server for the run (tests/postgres_server.py), stopped at its end."""
    from onlooker.testing.postgres import start_postgres

    running = start_postgres()
    yield running
    running.stop()


@pytest.fixture
def postgres_url(postgres_server: object) -> Iterator[str]:
    """A fresh database with the store's tables, on the run's PostgreSQL server; dropped when the
    test ends (measured: the drop costs no more than it saves in the server's stop and removal)."""
    url: str = postgres_server.fresh_database()  # type: ignore[attr-defined]
    yield url
    postgres_server.drop_database(url)  # type: ignore[attr-defined]


@pytest.fixture
def store_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Which backend the test's stores use: sqlite, or postgres through $ONLOOKER_STORE_URL as a
    user would set it (a fresh database). A test using it runs on the backends named by its
    function's `backends` attribute, else its module's `STORE_BACKENDS`, else both (tests/store uses
    it for every test)."""
    backend: str = getattr(request, "param", "sqlite")
    if backend == "postgres":
        monkeypatch.setenv("ONLOOKER_STORE_URL", request.getfixturevalue("postgres_url"))
    return backend


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "store_backend" in metafunc.fixturenames:
        backends = getattr(
            metafunc.function,
            "backends",
            getattr(metafunc.module, "STORE_BACKENDS", ("sqlite", "postgres")),
        )
        metafunc.parametrize("store_backend", backends, indirect=True)


@pytest.fixture
def claude_config(onlooker_home: Path) -> Path:
    """Claude Code's config folder for this test ($CLAUDE_CONFIG_DIR, under tmp)."""
    return onlooker_home.parent / "claude-config"


SHARED_SCOPES = {"class", "module", "package"}


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Iterator[None]:
    """`make test` spreads the tests over workers (pytest-xdist, `--dist loadgroup`). The tests of
    a module that share a module-scoped fixture (a model server, a browser, an installed wheel) go
    to one worker together, so the fixture is built once; every other test goes wherever a worker
    is free. Session-scoped fixtures (the PostgreSQL server) are built once per worker.

    The groups are made in the workers (where pytest-xdist has set `dist` to "no" and `loadgroup`
    to True). pytest-xdist 3.8 names a test's group by adding `@group` to its `_nodeid`, which
    pytest 9 no longer reads (its node id is `_id`): the name is added here too, or every test
    would be a group of its own and the fixtures built again on each worker, again and again."""
    option = config.option
    grouping = getattr(option, "loadgroup", False) or getattr(option, "dist", "no") == "loadgroup"
    if grouping:
        for item in items:
            info = getattr(item, "_fixtureinfo", None)
            if info is None:
                continue
            if any(defs[-1].scope in SHARED_SCOPES for defs in info.name2fixturedefs.values()):
                item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    yield  # pytest-xdist's hook
    if not grouping:
        return
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        node_id = getattr(item, "_id", None)
        if mark is not None and node_id is not None and "@" not in item.nodeid:
            item._id = type(node_id).parse(f"{item.nodeid}@{mark.args[0]}")


_SKIPPED: list[str] = []


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.skipped:
        _SKIPPED.append(f"{report.nodeid}: {report.longrepr}")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _SKIPPED.append(f"{report.nodeid}: {report.longrepr}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _SKIPPED and os.environ.get("ONLOOKER_NO_SKIPS") == "1" and exitstatus == 0:
        print("\nONLOOKER_NO_SKIPS=1, but these skipped:\n  " + "\n  ".join(_SKIPPED))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
