"""A store a team shares: many processes of several data homes write one PostgreSQL database at
once and lose nothing; each data home's journals (findings, scores, side effects, verdicts) load
into it once; a worker killed mid-job leaves the job to be claimed again, workers never claim one
job twice, and queue writes never wait on a finding being written."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg

from onlooker import FixedClock
from onlooker.core.assessment import Finding
from onlooker.runtime import reindex
from onlooker.scoring import Scores
from onlooker.store import FindingQuery, Store
from onlooker.store._postgres import WRITE_LOCK
from onlooker.store.changes import Change
from onlooker.store.effect_records import ComplianceVerdict, SideEffectSaved
from onlooker.store.score_records import (
    ObserverSettingSet,
    PatternRejected,
    ScoreCard,
    SessionScore,
    SessionScored,
)

WRITER = Path(__file__).with_name("writer.py")
ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
REBUILT = ("scores", "rejections", "observer_settings", "side_effects", "compliance_verdicts")
"""Tables of other features' records that the journals rebuild."""
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


def feature_changes(session_id: str) -> list[Change]:
    """A session scored twice (the second replaces the first), a rejection, a setting, a side
    effect saved twice (kept once), and two verdicts."""
    saved = SideEffectSaved(key=f"{session_id}:toolu_1:save_work_product", project="p",
                            session_id=session_id, action="save_work_product", tool="Write",
                            call_id="toolu_1", path="work/report.md", sha256="ab12", size=3)  # fmt: skip
    verdict = ComplianceVerdict(project="p", session_id=session_id, agent_id="a1",
                                agent_type="writer", verdict="retry", missing=("work/*.md",))  # fmt: skip
    return [
        SessionScored(score=SessionScore(ScoreCard(session_id, 1_000, 0.4), project="p")),
        SessionScored(score=SessionScore(ScoreCard(session_id, 2_000, 0.9), project="p")),
        PatternRejected(project="p", pattern=f"verbose in {session_id}"),
        ObserverSettingSet(project="p", name="steering", value="tests first"),
        saved,
        saved,
        verdict,
        dataclasses.replace(verdict, verdict="pass", missing=(), attempt=2),
    ]


def rebuilt(store: Store) -> dict[str, list[tuple[object, ...]]]:
    """The rows of REBUILT, in order, without the row numbers a table keeps them in order by (a
    PostgreSQL identity skips the numbers of rows an upsert left out)."""
    found = {table: store.index.table_rows(table) for table in REBUILT}
    for table in ("side_effects", "compliance_verdicts"):
        found[table] = [row[1:] for row in found[table]]
    return found


def test_scores_side_effects_and_verdicts_load_into_a_shared_store_once(
    tmp_path: Path, postgres_url: str, clock: FixedClock
) -> None:
    home = tmp_path / "laptop"
    with Store(home, clock=clock, url="") as local:  # one developer's SQLite store first
        local.record_changes(feature_changes("s1"), project="p", session_id="s1")
        local.record_changes(feature_changes("s2")[2:], project="p", session_id="s2")
        expected = rebuilt(local)
    assert [len(expected[t]) for t in REBUILT] == [1, 2, 1, 2, 4]
    env = {**os.environ, "ONLOOKER_HOME": str(home), "ONLOOKER_STORE_URL": postgres_url}
    for _ in range(2):  # `onlooker reindex` on the shared store, twice: nothing twice
        done = subprocess.run([ONLOOKER, "reindex", "--json"], env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        with Store(home, clock=clock, url=postgres_url) as shared:
            assert rebuilt(shared) == expected
            assert shared.effects.verdict_counts("p") == {"retry": 2, "pass": 2}
            assert shared.effects.done("s1:toolu_1:save_work_product")
            [score] = Scores(shared).all("p")
            assert (score.session_id, score.score) == ("s1", 0.9)


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


def test_queue_writes_never_wait_on_a_finding_being_written(postgres_url: str) -> None:
    with Store() as store:
        job_id = store.enqueue("score.session", {}, project="p", session_id="s", delay=600)
        with psycopg.connect(postgres_url) as writer:  # a finding's write, mid-transaction
            writer.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            done: list[object] = []

            def queue_writes() -> None:
                done.append(store.enqueue("k", {}, project="p"))
                done.append(store.jobs.hasten("score.session", "s"))
                done.append(store.jobs.claim("w"))

            thread = threading.Thread(target=queue_writes)
            thread.start()
            thread.join(timeout=30)
            finished = not thread.is_alive()
            writer.rollback()
        thread.join()
        assert finished, "a queue write waited on the store's write lock"
        claimed = done[2]
        assert done[1] is True and claimed is not None and claimed.id == job_id  # type: ignore[attr-defined]
