"""A job kind an installed plugin adds (`onlooker.jobs`) is run by the real detached worker."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from onlooker import plugins
from onlooker.daemon.worker import ensure_worker
from onlooker.daemon.worker._handlers import handler_for, plugin_handlers
from onlooker.store import Store

sys.path.insert(0, str(Path(__file__).parents[1] / "daemon"))
from processes import wait_for


def counts(home: Path) -> dict[str, int]:
    with Store(home) as store:
        return store.jobs.counts()


def test_the_worker_runs_a_plugins_job(tmp_path: Path, onlooker_home: Path) -> None:
    notes = tmp_path / "notes.txt"
    with Store(onlooker_home) as store:
        first = store.enqueue("example.note", {"path": str(notes), "text": "one"}, project="app")
        store.enqueue("example.note", {"path": str(notes), "text": "two"}, project="app")
        unknown = store.enqueue("example.nothing", {}, project="app")
    ensure_worker(onlooker_home)
    wait_for(lambda: counts(onlooker_home).get("done") == 2, what="the plugin's jobs")
    lines = sorted(notes.read_text().splitlines())
    assert lines == [f"example.note {first}: one", f"example.note {first + 1}: two"]
    wait_for(lambda: counts(onlooker_home).get("failed") == 1, what="the unknown kind to fail")
    with Store(onlooker_home) as store:
        failed = store.jobs.get(unknown)
        assert failed is not None and failed.attempts == 1  # not tried again
    log = (onlooker_home / "logs" / "worker.log").read_text()
    assert "no handler for job kind 'example.nothing'; known: memory.extract, review.run, " \
        "score.session, side_effect.run, " \
        "example.note" in log  # fmt: skip


TAKEN = """\
def register(register):
    register("fine.job", lambda job, ctx: None)
    register("review.run", lambda job, ctx: None)
"""


def test_a_plugin_may_not_take_a_built_in_job_kind(write_package: Callable[..., Path]) -> None:
    write_package("pkg-taker", TAKEN, {plugins.JOBS: "register"})
    assert handler_for("review.run").__module__ == "onlooker.reviewers._job"  # type: ignore[union-attr]
    assert sorted(plugin_handlers()) == ["example.note", "fine.job"]
    (failure,) = plugins.loaded(plugins.JOBS).failures  # type: ignore[union-attr]
    assert failure.plugin.package == "pkg-taker 1.0"
    assert failure.error == "PluginError: job kind 'review.run' is taken"
