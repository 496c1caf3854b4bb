"""Continuity through the real `onlooker hook` command: after compaction and on resume the
session's open observations come back once, with short ids the tools accept; a session's end
expires its episodes and a resume opens them again; a resumed session is not told its own
memories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hook_runner import answer

from onlooker import Finding
from onlooker.core.message import INTRODUCTION
from onlooker.memory._memories import Extracted, Memories
from onlooker.store import FindingQuery, Store, project_for, short_id

HEAD = "Still open in this session"
COMMAND = {"command": "cat notes/plan.txt", "description": "Read the plan"}


def hook(event: str, cwd: Path, session: str, **fields: Any) -> dict[str, Any]:
    return answer({"session_id": session, "transcript_path": f"/tmp/{session}.jsonl",
                   "cwd": str(cwd), "hook_event_name": event, **fields})  # fmt: skip


def context(reply: dict[str, Any]) -> str:
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


def failing(cwd: Path, session: str, n: int) -> str:
    return context(hook("PostToolUseFailure", cwd, session, tool_name="Bash", tool_input=COMMAND,
                        tool_use_id=f"toolu_{session}_{n}", is_interrupt=False,
                        error="cat: notes/plan.txt: No such file or directory"))  # fmt: skip


def stalled(tmp_path: Path, session: str) -> Path:
    """A project whose session `session` has an open Stall after five identical failing calls."""
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True, exist_ok=True)
    hook("SessionStart", app, session, source="startup")
    hook("UserPromptSubmit", app, session, prompt="Read the plan and follow it.")
    told = [failing(app, session, n) for n in range(1, 6)]
    assert any("Stall" in text for text in told), told
    return app


def open_trajectory(home: Path, app: Path, session: str) -> list[Any]:
    with Store(home) as store:
        page = store.query(FindingQuery(project=project_for(app), session_id=session))
    return [o.finding for o in page.observations]


def test_after_compaction_the_open_observations_come_back_once_with_ids(
    tmp_path: Path, onlooker_home: Path
) -> None:
    app = stalled(tmp_path, "c1")
    found = open_trajectory(onlooker_home, app, "c1")
    assert found and all(f.status == "open" for f in found)
    stall = next(f for f in found if f.observer == "Stall")
    hook("PreCompact", app, "c1", trigger="manual", custom_instructions="")
    again = context(hook("SessionStart", app, "c1", source="compact"))
    assert again.startswith(f"<observations>\nStill open in this session ({len(found)}), said "
                            "again after compaction:")  # fmt: skip
    for f in found:  # each with its short id, observer, and the call it points at
        assert f"] {short_id(f.id)} {f.observer}: " in again
    assert "cat notes/plan.txt" in again and "(at call " in again
    assert again.endswith(INTRODUCTION)
    assert len(again) <= 4_000
    # once: the next prompt does not say it again, nor does a prompt after it
    assert HEAD not in context(hook("UserPromptSubmit", app, "c1", prompt="Go on."))
    assert "Active Observations" not in context(hook("UserPromptSubmit", app, "c1", prompt="Go."))
    # a second compaction loses it again: it comes back again
    assert short_id(stall.id) in context(hook("SessionStart", app, "c1", source="compact"))
    # the short id is what the tools take
    with Store(onlooker_home) as store:
        assert store.find_id(short_id(stall.id), project_for(app)) == stall.id
    # a fresh session of the project is not told another session's episodes
    assert HEAD not in context(hook("SessionStart", app, "other", source="startup"))


def test_a_session_end_expires_its_episodes_and_a_resume_opens_them_again(
    tmp_path: Path, onlooker_home: Path
) -> None:
    app = stalled(tmp_path, "r1")
    with Store(onlooker_home) as store:  # a reviewer's finding about code, made in the session
        (review,) = store.create(
            [Finding(observer="Code Reviewer", content="Bare except hides errors",
                     severity="high", source_type="file", source_ref="src/app.py:12")],
            project=project_for(app), session_id="r1",
        )  # fmt: skip
    hook("Stop", app, "r1", stop_hook_active=False)
    hook("SessionEnd", app, "r1", reason="other")  # as every `claude -p` run ends
    code = [f for f in open_trajectory(onlooker_home, app, "r1") if f.source_type == "file"]
    assert [(f.id, f.status) for f in code] == [(review.observation.id, "open")]  # never expires
    ended = [f for f in open_trajectory(onlooker_home, app, "r1") if f.source_type != "file"]
    assert ended and {(f.status, f.resolution_note) for f in ended} == {
        ("expired", "the session ended")
    }

    resumed = context(hook("SessionStart", app, "r1", source="resume"))
    assert "said again after resuming" in resumed
    assert all(short_id(f.id) in resumed for f in ended)
    assert (
        f"] {short_id(review.observation.id)} Code Reviewer: Bare except hides errors " in (resumed)
        and "(src/app.py:12)" in resumed
    )
    back = [f for f in open_trajectory(onlooker_home, app, "r1") if f.source_type != "file"]
    assert {f.id for f in back} == {f.id for f in ended}
    assert {(f.status, f.resolution_note) for f in back} == {("open", None)}
    assert HEAD not in context(hook("UserPromptSubmit", app, "r1", prompt="Continue."))
    # ended and resumed again, unchanged: the transcript it resumes with holds the list already
    hook("SessionEnd", app, "r1", reason="other")
    assert HEAD not in context(hook("SessionStart", app, "r1", source="resume"))
    assert {f.status for f in open_trajectory(onlooker_home, app, "r1")} == {"open"}
    # compaction drops it from the context: it comes back
    assert HEAD in context(hook("SessionStart", app, "r1", source="compact"))


def test_nothing_open_means_nothing_said(tmp_path: Path, onlooker_home: Path) -> None:
    app = tmp_path / "calm"
    (app / ".git").mkdir(parents=True)
    hook("SessionStart", app, "n1", source="startup")
    assert context(hook("SessionStart", app, "n1", source="compact")) == ""
    assert context(hook("SessionStart", app, "n1", source="resume")) == ""


def test_a_resumed_session_is_not_told_the_memories_it_made(
    tmp_path: Path, onlooker_home: Path
) -> None:
    app = tmp_path / "shop"
    (app / ".git").mkdir(parents=True)
    with Store(onlooker_home) as store:
        now = store.clock.now()
        memories = Memories(store)
        memories.remember([Extracted("Fixtures need a server", "Run make fixtures.", now)],
                          project=project_for(app), session_id="earlier")  # fmt: skip
        memories.remember([Extracted("Plan file is missing", "notes/plan.txt is absent.", now)],
                          project=project_for(app), session_id="m1")  # fmt: skip
    digest = context(hook("SessionStart", app, "m1", source="resume"))
    assert "Fixtures need a server" in digest
    assert "Plan file is missing" not in digest
    assert "Plan file is missing" in context(hook("SessionStart", app, "m2", source="startup"))
