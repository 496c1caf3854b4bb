"""A store a team shares: many processes of several data homes write one PostgreSQL database at
once and lose nothing; each data home's journals load into it once; a worker killed mid-job
leaves the job to be claimed again, and workers never claim one job twice."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg

from onlooker import FixedClock
from onlooker.core.assessment import Finding
from onlooker.runtime import reindex
from onlooker.store import FindingQuery, Store

WRITER = Path(__file__).with_name("writer.py")
PROJECT = "reliability"
WRITERS = 16
EACH = 40
SHARED_EVERY = 50  # writer.py: every writer reports the shared finding at its step 0


STORE_BACKENDS = ("postgres",)  # tests/store/conftest.py: these are about the shared store


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(WRITER), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_sixteen_writers_from_two_data_homes_lose_nothing(tmp_path: Path) -> None:
    homes = [tmp_path / "alice", tmp_path / "bob"]
    writers = [
        spawn("race", str(homes[i % 2]), f"w{i}", f"s{i // 2}", str(EACH)) for i in range(WRITERS)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=600)
        assert writer.returncode == 0, err
        assert err == ""

    shared_reports = WRITERS * (1 + (EACH - 1) // SHARED_EVERY)
    with Store(homes[0]) as alice, Store(homes[1]) as bob:
        assert alice.origin != bob.origin
        for store in (alice, bob):  # both see everything
            assert store.query(FindingQuery(project=PROJECT)).count == WRITERS * EACH + 1
        [shared] = bob.query(FindingQuery(project=PROJECT, observers=("shared",))).observations
        assert shared.occurrences == shared_reports  # dedup held across machines
        assert alice.index.last_serial() == WRITERS * EACH + shared_reports
        before = alice.index.table_rows("findings")
        for store in (alice, bob, alice):  # loading journals again duplicates nothing
            report = reindex(store, vector_sources=())
            assert report.journals == WRITERS // 2  # its own: 8 session journals
        assert alice.index.table_rows("findings") == before


def test_a_data_home_journals_load_into_a_new_shared_store_once(
    tmp_path: Path, postgres_url: str, clock: FixedClock
) -> None:
    home = tmp_path / "laptop"
    with Store(home, clock=clock, url="") as local:  # one developer's SQLite store first
        made = local.create([Finding(observer="o", content="flaky retry")], project="p")
        local.create([Finding(observer="o", content="flaky retry")], project="p", session_id="s1")
        local.resolve(made[0].observation.id, "fixed", project="p", session_id="s1")
        local.create([Finding(observer="o", content="still open")], project="p", session_id="s2")
        expected = sorted(
            (o.id, o.finding.status, o.occurrences, o.finding.resolution_note)
            for o in local.query(FindingQuery(project="p")).observations
        )
    with Store(home, clock=clock, url=postgres_url) as shared:
        for _ in range(2):
            report = reindex(shared, vector_sources=())
            assert report.journals == 3
            found = sorted(
                (o.id, o.finding.status, o.occurrences, o.finding.resolution_note)
                for o in shared.query(FindingQuery(project="p")).observations
            )
            assert found == expected


def test_a_worker_killed_mid_job_leaves_it_to_be_taken_again(onlooker_home: Path) -> None:
    with Store() as store:
        job_id = store.enqueue("review.run", {"n": 1}, project="p")
    worker = spawn("claim", str(onlooker_home), "laptop:1", "", "60")
    assert worker.stdout is not None
    assert worker.stdout.readline().split() == ["claimed", str(job_id), "1"]
    with Store() as store:
        assert store.jobs.claim("desktop:2") is None  # its lease holds while it works
    worker.kill()
    worker.communicate(timeout=30)
    later = FixedClock(datetime.now(UTC) + timedelta(minutes=2))  # past the dead worker's lease
    with Store(clock=later) as store:
        job = store.jobs.claim("desktop:2")
        assert job is not None and (job.id, job.attempts, job.worker) == (job_id, 2, "desktop:2")
        assert store.jobs.complete(job)
        assert store.jobs.get(job_id).status == "done"  # type: ignore[union-attr]


def test_a_locked_job_is_skipped_not_waited_for(postgres_url: str) -> None:
    with Store() as store:
        first = store.enqueue("k", {}, project="p")
        second = store.enqueue("k", {}, project="p")
        with psycopg.connect(postgres_url) as other:  # another machine's claim, mid-transaction
            other.execute("SELECT id FROM jobs WHERE id = %s FOR UPDATE", (first,))
            job = store.jobs.claim("w")
            assert job is not None and job.id == second
            other.rollback()
        job = store.jobs.claim("w")
        assert job is not None and job.id == first


def test_workers_racing_claim_each_job_once() -> None:
    with Store() as store:
        ids = {store.enqueue("k", {"i": i}, project="p") for i in range(60)}
    claimed: list[int] = []
    lock = threading.Lock()

    def work(name: str) -> None:
        with Store() as store:
            while (job := store.jobs.claim(name)) is not None:
                assert store.jobs.complete(job)
                with lock:
                    claimed.append(job.id)

    threads = [threading.Thread(target=work, args=(f"host:{i}",)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == sorted(ids)
