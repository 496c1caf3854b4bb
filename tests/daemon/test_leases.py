"""A job belongs to one claim at a time: the worker renews the lease while the handler runs, and a
claim that lost its job can neither finish nor re-queue it."""

from __future__ import annotations

from pathlib import Path

import pytest

from onlooker import FixedClock
from onlooker.daemon.worker import HANDLERS, serve
from onlooker.daemon.worker import _process as process
from onlooker.store import Store
from onlooker.store._jobs import LEASE, Backlog


def test_a_handler_that_outlives_its_lease_runs_once(
    onlooker_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(HANDLERS, "test.slow", "slow_job:handle")
    monkeypatch.setattr(process, "LEASE", 0.6)
    runs = tmp_path / "runs.log"
    with Store(onlooker_home) as store:
        job_id = store.enqueue("test.slow", {"log": str(runs), "seconds": 2.0}, project="p")
    assert serve(onlooker_home, idle_seconds=0.3, threads=4) == 0
    assert runs.read_text().splitlines() == [f"{job_id} attempt 1"]
    with Store(onlooker_home) as store:
        job = store.jobs.get(job_id)
    assert job is not None and (job.status, job.attempts) == ("done", 1)


def test_a_stale_claim_changes_nothing(tmp_path: Path, clock: FixedClock) -> None:
    with Store(tmp_path, clock=clock) as store:
        job_id = store.enqueue("review.run", {}, project="p")
        stale = store.jobs.claim("host:1")
        clock.advance(LEASE + 1)
        current = store.jobs.claim("host:2")
        assert stale is not None and current is not None
        assert not store.jobs.renew(stale)
        assert store.jobs.fail(stale, "late failure") is None
        assert not store.jobs.complete(stale)
        held = store.jobs.get(job_id)
        assert held is not None and (held.status, held.worker, held.attempts) == (
            "running",
            "host:2",
            2,
        )
        assert store.jobs.complete(current)
        assert store.jobs.fail(stale, "later still") is None
        done = store.jobs.get(job_id)
        assert done is not None and done.status == "done"  # not re-queued by the late failure


def test_the_same_workers_earlier_claim_is_stale_too(tmp_path: Path, clock: FixedClock) -> None:
    with Store(tmp_path, clock=clock) as store:
        job_id = store.enqueue("review.run", {}, project="p")
        first = store.jobs.claim("host:1")
        clock.advance(LEASE + 1)
        second = store.jobs.claim("host:1")  # the worker name alone does not tell claims apart
        assert first is not None and second is not None
        assert store.jobs.complete(second)
        assert store.jobs.fail(first, "late failure") is None
        done = store.jobs.get(job_id)
        assert done is not None and done.status == "done"


def test_a_renewed_lease_is_not_claimed_again(tmp_path: Path, clock: FixedClock) -> None:
    with Store(tmp_path, clock=clock) as store:
        store.enqueue("review.run", {}, project="p")
        job = store.jobs.claim("host:1")
        assert job is not None
        clock.advance(LEASE - 1)
        assert store.jobs.renew(job)
        clock.advance(LEASE - 1)
        assert store.jobs.claim("host:2") is None
        clock.advance(2)
        assert store.jobs.claim("host:2") is not None


def test_a_dead_workers_jobs_are_taken_up_at_once_not_when_the_lease_runs_out(
    onlooker_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed while it held a job leaves it `running` with a long lease; the next worker
    of this host holds the lock alone, so it takes the job up at once."""
    import socket

    monkeypatch.setitem(HANDLERS, "test.slow", "slow_job:handle")
    runs = tmp_path / "runs.log"
    with Store(onlooker_home) as store:
        job_id = store.enqueue("test.slow", {"log": str(runs), "seconds": 0.0}, project="p")
        held = store.jobs.claim(f"{socket.gethostname()}:999999", lease=3600)
        assert held is not None
        assert store.jobs.backlog().running == 1
    assert serve(onlooker_home, idle_seconds=0.3, threads=1) == 0
    assert runs.read_text().splitlines() == [f"{job_id} attempt 2"]
    with Store(onlooker_home) as store:
        job = store.jobs.get(job_id)
        assert job is not None and job.status == "done"
        assert store.jobs.backlog() == Backlog(queued=0, running=0, oldest_seconds=0.0)


def test_the_backlog_counts_waiting_jobs_and_the_oldest_ones_age(
    tmp_path: Path, clock: FixedClock
) -> None:
    with Store(tmp_path, clock=clock) as store:
        store.enqueue("review.run", {}, project="p")
        clock.advance(30)
        store.enqueue("review.run", {}, project="p")
        assert store.jobs.claim("host:1") is not None
        clock.advance(15)
        backlog = store.jobs.backlog()
    assert (backlog.queued, backlog.running, backlog.oldest_seconds) == (1, 1, 45.0)
