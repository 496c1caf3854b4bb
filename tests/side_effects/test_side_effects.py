"""Side effects in process: a rule runs once for concurrent runs of the same call, a host without
a worker runs them on its own thread (a custom `@side_effect` included), the archive keeps its
bounds, and collect_media copies the media a result names."""

from __future__ import annotations

import re
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from onlooker.core.events import ToolCall
from onlooker.core.session import Session
from onlooker.errors import SideEffectError
from onlooker.runtime import Arrival, Runtime
from onlooker.side_effects import (
    Archive,
    EffectContext,
    Limits,
    Rule,
    SideEffectSettings,
    Written,
    job_payload,
    run_side_effects,
    side_effect,
)
from onlooker.store import Store, project_for

AT = datetime(2026, 1, 6, 12, 0, tzinfo=UTC)


def project(tmp_path: Path, config: str = "") -> Path:
    root = tmp_path / "app"
    (root / ".git").mkdir(parents=True)
    if config:
        (root / "onlooker.yaml").write_text(config)
    return root


@pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike
def test_concurrent_runs_of_one_call_save_it_once(tmp_path: Path, onlooker_home: Path) -> None:
    root = project(tmp_path)
    (root / "out.md").write_text("# out\n")
    call = ToolCall(session_id="s", at=AT, call_id="toolu_1", tool="Write",
                    input={"file_path": str(root / "out.md")})  # fmt: skip
    settings = SideEffectSettings(rules=(Rule("save_work_product"), Rule("activity_log", ("*",))))
    payload = job_payload(call, settings.due(call, root), settings, session_id="s",
                          project_root=root, home=onlooker_home)  # fmt: skip
    with Store(onlooker_home) as store:
        results: list[int] = []
        runs = [threading.Thread(target=lambda: results.append(
            len(run_side_effects(store, "app", payload)))) for _ in range(4)]  # fmt: skip
        for run in runs:
            run.start()
        for run in runs:
            run.join()
        assert sorted(results) in ([0, 0, 1, 1], [0, 0, 0, 2])
        saved = store.effects.saved("app", "s")
    assert sorted(s.action for s in saved) == ["activity_log", "save_work_product"]
    log = Archive(onlooker_home / "archive", "app", "s", Limits()).folder / "workbench_activity"
    assert (log / "activity.log").read_text().count("toolu_1") == 1


notes: list[str] = []


@side_effect("note_tool")
def note_tool(call: ToolCall, ctx: EffectContext) -> Written:
    notes.append(threading.current_thread().name)
    return ctx.archive.write_text(f"notes/{call.call_id}.txt", call.tool)


@pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike
def test_a_host_without_a_worker_runs_side_effects_on_a_thread_of_its_own(
    tmp_path: Path, onlooker_home: Path
) -> None:
    root = project(
        tmp_path, "side_effects:\n  rules:\n    - action: note_tool\n      tools: [Read]\n"
    )
    notes.clear()  # run once per backend
    with Store(onlooker_home) as store:
        runtime = Runtime(store)  # no wake_worker: an in-process adapter
        call = ToolCall(at=AT, call_id="toolu_7", tool="Read", input={"file_path": "a"}, output="")
        runtime.handle(Arrival(call, "s-in", cwd=str(root)))
        deadline = time.monotonic() + 30
        while not store.effects.saved(project_for(root), "s-in") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [(s.action, s.path) for s in store.effects.saved(project_for(root), "s-in")] == [
            ("note_tool", "notes/toolu_7.txt")
        ]
        assert store.jobs.counts() == {}
    assert notes == ["onlooker-side-effects"]


def test_the_archive_keeps_inside_its_folder_and_its_bounds(tmp_path: Path) -> None:
    archive = Archive(tmp_path / "archive", "app", "s", Limits(max_log_bytes=100))
    for wrong in ("../escape.txt", "/etc/x", ".keys/k", ""):
        with pytest.raises(SideEffectError):
            archive.write_text(wrong, "x")
    for n in range(30):
        archive.append_text("workbench_activity/activity.log", f"line {n:03}\n")
    logs = sorted((archive.folder / "workbench_activity").iterdir())
    assert [p.name for p in logs] == ["activity.1.log", "activity.log"]
    assert all(p.stat().st_size <= 100 for p in logs)
    assert "line 029" in logs[1].read_text()
    first = archive.write_text("files/a.md", "one")
    assert archive.write_text("files/a.md", "one").note == "unchanged"
    archive.write_text("files/a.md", "two")
    kept = sorted(p.name for p in (archive.folder / "files").iterdir())
    assert kept == sorted(["a.md", f"a.{first.sha256[:8]}.md"])


@pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike
def test_collect_media_copies_the_media_a_result_names(tmp_path: Path, onlooker_home: Path) -> None:
    root = project(tmp_path)
    (root / "out").mkdir()
    (root / "out" / "clip.mp4").write_bytes(b"\x00video")
    call = ToolCall(session_id="s", at=AT, call_id="toolu_m", tool="mcp__youtube__download",
                    output="Saved out/clip.mp4 and out/missing.mp3 (notes.txt skipped)")  # fmt: skip
    settings = SideEffectSettings(rules=(Rule("collect_media", ("mcp__youtube__*",)),))
    assert settings.due(call, root)
    assert not settings.due(ToolCall(tool="mcp__youtube__search", output="no media"), root)
    payload = job_payload(call, settings.rules, settings, session_id="s", project_root=root,
                          home=onlooker_home)  # fmt: skip
    with Store(onlooker_home) as store:
        saved = run_side_effects(store, "app", payload)
    assert [(s.path, s.size) for s in saved] == [("media/clip.mp4", 6)]


@pytest.mark.usefixtures("store_backend")  # SQLite and PostgreSQL alike
def test_the_activity_log_is_in_call_order_whatever_order_its_jobs_run_in(
    tmp_path: Path, onlooker_home: Path
) -> None:
    root = project(tmp_path)
    session = Session("s")
    calls = [
        session.append(
            ToolCall(
                at=AT + timedelta(seconds=n // 2),
                call_id=f"toolu_{n}",
                tool="Bash",
                input={"command": f"step {n}"},
                output=f"## output of {n}",
            )
        )
        for n in range(1, 13)
    ]
    settings = SideEffectSettings(rules=(Rule("activity_log"),))
    payloads = [
        job_payload(
            c, settings.rules, settings, session_id="s", project_root=root, home=onlooker_home
        )
        for c in calls
    ]
    late, parallel = payloads[:4], payloads[4:]  # a retried job runs last; the rest at once
    with Store(onlooker_home) as store:
        runs = [threading.Thread(target=run_side_effects, args=(store, "app", p))
                for p in reversed(parallel)]  # fmt: skip
        for run in runs:
            run.start()
        for run in runs:
            run.join()
        for payload in reversed(late):
            run_side_effects(store, "app", payload)
    log = Archive(onlooker_home / "archive", "app", "s", Limits()).folder / "workbench_activity"
    text = (log / "activity.log").read_text()
    assert [int(n) for n in re.findall(r"^\$ step (\d+)$", text, re.MULTILINE)] == list(
        range(1, 13)
    )
    assert re.findall(r"^## .* Bash \(toolu_(\d+)\) · call (\d+)$", text, re.MULTILINE) == [
        (str(n), str(n)) for n in range(1, 13)
    ]
    assert "\n ## output of 3\n" in text  # an output line never passes for an entry's head
