"""The job queue and observer runs in a real index (SQLite and PostgreSQL): leases, retries, delays
and hastening, delivery once, costs."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from onlooker import FixedClock
from onlooker.store import Store
from onlooker.store._jobs import LEASE


def test_a_job_is_claimed_once_and_completed(tmp_path: Path, clock: FixedClock) -> None:
    with Store(tmp_path, clock=clock) as store, Store(tmp_path, clock=clock) as other:
        job_id = store.enqueue("review.run", {"reviewer": "R"}, project="p", session_id="s")
        job = other.jobs.claim("worker-1")
        assert job is not None and job.id == job_id and job.payload == {"reviewer": "R"}
        assert (job.kind, job.project, job.session_id, job.attempts) == ("review.run", "p", "s", 1)
        assert store.jobs.claim("worker-2") is None
        assert other.jobs.complete(job)
        assert store.jobs.counts() == {"done": 1}
        assert not store.jobs.has_ready()


def test_a_crashed_workers_job_is_claimed_again_after_its_lease(
    tmp_path: Path, clock: FixedClock
) -> None:
    with Store(tmp_path, clock=clock) as store:
        job_id = store.enqueue("review.run", {}, project="p")
        assert store.jobs.claim("dies") is not None
        clock.advance(LEASE - 1)
        assert store.jobs.claim("second") is None
        clock.advance(2)
        again = store.jobs.claim("second")
        assert again is not None and again.id == job_id and again.attempts == 2
        clock.advance(LEASE + 1)
        assert store.jobs.claim("third") is not None
        clock.advance(LEASE + 1)
        assert store.jobs.claim("fourth") is None  # three claims died: given up
        job = store.jobs.get(job_id)
        assert job is not None and job.status == "failed"


def test_a_failed_attempt_is_retried_after_a_back_off_then_fails(
    tmp_path: Path, clock: FixedClock
) -> None:
    with Store(tmp_path, clock=clock) as store:
        store.enqueue("review.run", {}, project="p")
        statuses = []
        for _ in range(3):
            job = store.jobs.claim("w")
            assert job is not None
            statuses.append(store.jobs.fail(job, "model down"))
            assert store.jobs.claim("w") is None  # not before the back-off
            clock.advance(60)
        assert statuses == ["queued", "queued", "failed"]
        assert store.jobs.counts() == {"failed": 1}


def test_a_delayed_job_waits_until_due_or_hastened(tmp_path: Path, clock: FixedClock) -> None:
    with Store(tmp_path, clock=clock) as store:
        first = store.enqueue("score.session", {}, project="p", session_id="s1", delay=120)
        second = store.enqueue("score.session", {}, project="p", session_id="s2", delay=60)
        assert store.jobs.next_due() == clock.now() + timedelta(seconds=60)
        assert not store.jobs.has_ready() and store.jobs.claim("w") is None
        assert store.jobs.unfinished("score.session", "s1")
        assert not store.jobs.hasten("memory.extract", "s1")  # another kind: untouched
        assert store.jobs.hasten("score.session", "s1")
        assert not store.jobs.hasten("score.session", "s1")  # already due
        assert store.jobs.has_ready()
        job = store.jobs.claim("w")
        assert job is not None and job.id == first
        assert not store.jobs.hasten("score.session", "s1")  # running, not queued
        assert store.jobs.claim("w") is None
        clock.advance(60)
        job = store.jobs.claim("w")
        assert job is not None and job.id == second
        assert store.jobs.next_due() is None


def test_reports_are_delivered_once_per_session(tmp_path: Path, clock: FixedClock) -> None:
    with Store(tmp_path, clock=clock) as store:
        store.record_observer_run("A", session_id="s", project="p", status="ok", report="one")
        store.record_observer_run("B", session_id="s", project="p", status="ok", report="two")
        store.record_observer_run("C", session_id="t", project="p", status="ok", report="other")
        store.record_observer_run("D", session_id="s", project="p", status="skipped")
        assert store.runs.take_undelivered("s") == ["one", "two"]
        assert store.runs.take_undelivered("s") == []
        assert store.runs.take_undelivered("t") == ["other"]


def test_costs_add_up_per_observer(tmp_path: Path, clock: FixedClock) -> None:
    with Store(tmp_path, clock=clock) as store:
        run = store.record_observer_run
        run("Sec", session_id="s", project="p", status="ok", model="m1", input_tokens=100,
            output_tokens=10, cost_usd=0.5, duration=1.0)  # fmt: skip
        run("Sec", session_id="s", project="p", status="timeout", model="m1", duration=30.0,
            error="ModelTimeout")  # fmt: skip
        run("Sec", session_id="s", project="p", status="ok", model="m2", input_tokens=50,
            output_tokens=5, cost_usd=0.25, duration=2.0)  # fmt: skip
        run("Local", session_id="s", project="p", status="ok", model="local:smollm2",
            input_tokens=7, output_tokens=3)  # fmt: skip
        run("Elsewhere", session_id="x", project="q", status="ok", cost_usd=9.0)
        costs = store.runs.costs("p")
        assert [c.observer for c in costs] == ["Sec", "Local"]
        sec, local = costs
        assert sec.runs == 3 and sec.by_status == {"ok": 2, "timeout": 1}
        assert (sec.input_tokens, sec.output_tokens, sec.cost_usd) == (150, 15, 0.75)
        assert sec.seconds == 33.0 and sec.models == ("m1", "m2")
        assert local.cost_usd is None and local.input_tokens == 7
        assert store.runs.last("Sec", "s") == ("ok", None)
        assert store.runs.costs()[0].observer == "Elsewhere"


def test_runs_read_after_a_number_and_per_day(tmp_path: Path, clock: FixedClock) -> None:
    """What the live viewer reads: runs past the newest it has seen, a session's, and the tokens
    and cost of each day."""
    with Store(tmp_path, clock=clock) as store:
        assert store.runs.newest() == 0 and store.runs.per_day() == []
        run = store.record_observer_run
        first = run("Sec", session_id="s", project="p", status="ok", model="m1",
                    input_tokens=100, output_tokens=10, cost_usd=0.5, report="fine")  # fmt: skip
        second = run("Local", session_id="t", project="p", status="ok", input_tokens=7,
                     output_tokens=3)  # fmt: skip
        third = run("Sec", session_id="s", project="q", status="error", error="boom")
        assert store.runs.newest() == third
        after = store.runs.after(first)
        assert [r["n"] for r in after] == [second, third]
        assert (after[1]["observer"], after[1]["status"], after[1]["error"]) == (
            "Sec",
            "error",
            "boom",
        )
        assert [r["n"] for r in store.runs.after(0, session_id="s")] == [first, third]
        assert [r["n"] for r in store.runs.after(0, limit=1)] == [first]
        day = clock.now().date().isoformat()
        assert store.runs.per_day("p") == [(day, 107, 13, 0.5)]
        assert store.runs.per_day("q") == [(day, 0, 0, None)]
