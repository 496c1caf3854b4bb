"""A store writer run as a real process by the reliability tests (not a test module).

race HOME WRITER SESSION COUNT: COUNT events and COUNT findings, one transaction each, plus a
  finding every writer shares (so dedup runs under contention); exits 0 when done.
chaos HOME WRITER SESSION SEED: creates, repeats, acknowledges, resolves and journals events in a
  random order until killed, printing "ok <operation> <finding id>" after each one returns.
big HOME WRITER SESSION MEGABYTES: journals one finding that large, in one write (to be killed
  while the write is under way).
claim HOME WRITER SESSION LEASE: claims one job with a lease of LEASE seconds, prints
  "claimed <id> <attempts>" and works on it until killed.
"""

from __future__ import annotations

import random
import sys
import time

from onlooker.core.assessment import Finding
from onlooker.core.events import Marker
from onlooker.store import Store

PROJECT = "reliability"
SHARED_EVERY = 50


def race(store: Store, writer: str, session: str, count: int) -> None:
    for i in range(count):
        store.append(
            [Marker(session_id=session, seq=i + 1, name=f"{writer}:{i}")],
            project=PROJECT,
            session_id=session,
        )
        finding = Finding(observer=writer, content="race finding", source_ref=f"{writer}:{i}")
        store.create([finding], project=PROJECT, session_id=session)
        if i % SHARED_EVERY == 0:
            shared = Finding(observer="shared", content="every writer reports this")
            store.create([shared], project=PROJECT, session_id=session)


def chaos(store: Store, writer: str, session: str, seed: int) -> None:
    rng = random.Random(seed)
    mine: list[str] = []
    step = 0
    while True:
        step += 1
        roll = rng.random()
        if roll < 0.15:
            store.append(
                [
                    Marker(
                        session_id=session,
                        seq=step,
                        name=f"{writer}:{step}",
                        data={"pad": "x" * rng.randrange(20_000)},
                    )
                ],
                project=PROJECT,
                session_id=session,
            )
            print(f"ok event {writer}:{step}", flush=True)
            continue
        if roll < 0.55 or not mine:
            finding = Finding(
                observer=writer,
                content=f"chaos finding {writer} step {step}",
                source_ref=f"{writer}:{step}",
                evidence="e" * rng.randrange(30_000),
                severity=rng.choice(["critical", "high", "medium", "low", "info"]),
            )
            created = store.create([finding], project=PROJECT, session_id=session)
            mine.append(created[0].observation.id)
            print(f"ok create {created[0].observation.id}", flush=True)
        elif roll < 0.65:
            shared = Finding(observer="shared", content="a finding everyone repeats")
            created = store.create([shared], project=PROJECT, session_id=session)
            print(f"ok repeat {created[0].observation.id}", flush=True)
        elif roll < 0.8:
            target = rng.choice(mine)
            if store.get([target])[0].finding.status == "open":
                store.acknowledge(target, project=PROJECT, session_id=session)
                print(f"ok ack {target}", flush=True)
        else:
            target = mine.pop(rng.randrange(len(mine)))
            store.resolve(target, f"fixed at step {step}", project=PROJECT, session_id=session)
            print(f"ok resolve {target}", flush=True)


def big(store: Store, writer: str, session: str, megabytes: int) -> None:
    finding = Finding(observer=writer, content="huge", evidence="e" * (megabytes << 20))
    store.create([finding], project=PROJECT, session_id=session)


def claim(store: Store, writer: str, session: str, lease: int) -> None:
    job = store.jobs.claim(writer, lease=lease)
    print(f"claimed {job.id if job else 0} {job.attempts if job else 0}", flush=True)
    while True:  # the handler at work, until the process is killed
        time.sleep(1)


def main() -> None:
    mode, home, writer, session, number = sys.argv[1:6]
    with Store(home) as store:
        {"race": race, "chaos": chaos, "big": big, "claim": claim}[mode](
            store, writer, session, int(number)
        )


if __name__ == "__main__":
    main()
