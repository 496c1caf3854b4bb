"""Replay spread over forked processes: the same sessions, in the same order, as one by one."""

from __future__ import annotations

import os
import re
import shutil
import signal
from pathlib import Path

import pytest

from onlooker.core.observer import ObserverContext, observer
from onlooker.errors import TranscriptError
from onlooker.hosts.recorded.replay import SessionReplay, observers_named, replay_paths
from onlooker.hosts.recorded.replay_pool import (
    PARALLEL_BYTES,
    cores,
    replaying,
    transcript_bytes,
    workers_for,
)
from onlooker.hosts.recorded.transcripts import transcript_paths


def dicts(replays: list[SessionReplay]) -> list[dict[str, object]]:
    """What `--json` prints, without the finding ids that are made fresh each time."""
    return [
        {
            **r.to_dict(),
            "injections": [re.sub(r"\b[0-9a-f]{8}\b", "ID", i.text) for i in r.injections],
        }
        for r in replays
    ]


@pytest.fixture
def corpus(fixtures: Path, tmp_path: Path) -> list[Path]:
    """Copies of the real Claude Code transcripts until PARALLEL_BYTES of them."""
    copies = 0
    files: list[Path] = []
    while transcript_bytes(files) < PARALLEL_BYTES:
        copies += 1
        shutil.copytree(fixtures / "claude-code", tmp_path / f"copy-{copies}")
        files = transcript_paths(tmp_path)
    return files


def test_enough_bytes_in_several_files_take_one_worker_a_core(corpus: list[Path]) -> None:
    assert transcript_bytes(corpus) >= PARALLEL_BYTES
    assert workers_for(corpus) == min(cores(), len(corpus))
    assert workers_for(corpus[:1]) == 1  # one file: nothing to spread
    assert workers_for(corpus, 3) == 3


def test_few_bytes_stay_in_this_process(fixtures: Path) -> None:
    files = transcript_paths(fixtures / "labeled")
    assert transcript_bytes(files) < PARALLEL_BYTES
    assert workers_for(files) == 1


def test_workers_give_what_one_by_one_gives_in_the_same_order(corpus: list[Path]) -> None:
    observers = observers_named()
    serial = list(replay_paths(corpus, observers, deadline_minutes=20))
    with replaying(corpus, observers, deadline_minutes=20, workers=2) as replayed:
        spread = [(file, sessions) for file, sessions in replayed]
    assert [file for file, _ in spread] == corpus
    assert dicts([s for _, sessions in spread for s in sessions]) == dicts(serial)
    assert any(s.assessments for s in serial)


def test_a_bad_file_fails_where_its_turn_comes(fixtures: Path, tmp_path: Path) -> None:
    bad = tmp_path / "not-a-transcript.jsonl"
    bad.write_text("not json\nnor this\n")
    good = transcript_paths(fixtures / "labeled")[:3]
    files = [*good, bad, *good]
    seen: list[Path] = []
    with (
        pytest.raises(TranscriptError, match=r"not-a-transcript\.jsonl: not a Claude Code"),
        replaying(files, observers_named(), workers=2) as replayed,
    ):
        for file, _ in replayed:
            seen.append(file)
    assert seen == good


def test_a_worker_that_dies_is_a_clear_error_naming_the_file(fixtures: Path) -> None:
    parent = os.getpid()

    @observer(name="Killer")
    def killer(ctx: ObserverContext) -> None:
        if os.getpid() != parent:  # in a worker: end it as the kernel's OOM killer would
            os.kill(os.getpid(), signal.SIGKILL)

    files = transcript_paths(fixtures / "labeled")[:4]
    with (
        pytest.raises(TranscriptError, match=r"the worker process replaying it ended"),
        replaying(files, lambda: [killer], workers=2) as replayed,
    ):
        list(replayed)
