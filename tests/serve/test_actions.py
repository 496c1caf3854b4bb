"""Acting from the viewer goes through the store's own operations with the CLI's and MCP's ids,
is journaled, and reaches the agent at its next hook: a forgotten memory is no longer injected,
improvements are accepted, rejected, steered and rolled back as `onlooker observer` does."""

from __future__ import annotations

from pathlib import Path

from viewer import Agent, context, hook, running_viewer

from onlooker.memory._memories import Extracted, Memories
from onlooker.scoring import Scores
from onlooker.scoring._scores import STEERING
from onlooker.store import Store, project_for
from onlooker.store.score_records import Improvement


def test_a_forgotten_memory_is_journaled_and_no_longer_injected(
    onlooker_home: Path, project: Path
) -> None:
    key = project_for(project)
    with Store(onlooker_home) as store:
        kept, gone = Memories(store).remember(
            [Extracted("Login needs a fresh token", "Refresh before calling /login.",
                       store.clock.now()),
             Extracted("Docs build with mkdocs", "Run mkdocs build --strict.", store.clock.now())],
            project=key, session_id="old",
        )  # fmt: skip
    with running_viewer() as viewer:
        status, found = viewer.request("GET", "/api/memories?q=token")
        assert status == 200 and [m["id"] for m in found["memories"]] == [kept.id]
        status, everything = viewer.request("GET", f"/api/memories?project={key}")
        assert {m["id"] for m in everything["memories"]} == {kept.id, gone.id}

        status, answer = viewer.write(f"/api/memories/{gone.id}/forget")
        assert status == 200 and answer == {"status": "forgotten", "ids": [gone.id]}
        status, answer = viewer.write(f"/api/memories/{gone.id}/forget")
        assert status == 400 and answer["error"] == f"id: no memory {gone.id}"
    with Store(onlooker_home) as store:
        assert [m.id for m in Memories(store).get([kept.id, gone.id])] == [kept.id]
        manual = store.journal(key).path.read_text()
    assert '"kind":"memories_forgotten"' in manual  # journaled, so reindex keeps it forgotten

    told = context(hook({"session_id": "next", "transcript_path": "/tmp/next.jsonl",
                         "cwd": str(project), "hook_event_name": "SessionStart",
                         "source": "startup"}))  # fmt: skip
    assert "Login needs a fresh token" in told and "mkdocs" not in told


def improvement(key: str, number: int, text: str) -> Improvement:
    return Improvement(id=f"imp-{number}", project=key, target="agents_md",
                       pattern=f"weakness {number}", text=text, reason=f"seen 3 times ({number})")  # fmt: skip


def test_improvements_are_accepted_rejected_steered_and_rolled_back(
    onlooker_home: Path, project: Path
) -> None:
    original = "# Rules\nKeep diffs small.\n"
    (project / "AGENTS.md").write_text(original)
    Agent(project, "s1").start("Add a login endpoint.")  # the project's folder, as journaled
    key = project_for(project)
    with Store(onlooker_home) as store:
        scores = Scores(store)
        scores.save(improvement(key, 1, "Run pytest after every edit"))
        scores.save(improvement(key, 2, "Name the files you changed"))
    with running_viewer() as viewer:
        status, listed = viewer.request("GET", f"/api/improvements?project={key}")
        numbered = {i["number"]: i["text"] for i in listed["improvements"]}
        assert numbered == {1: "Run pytest after every edit", 2: "Name the files you changed"}

        status, answer = viewer.write("/api/improvements/accept", {"project": key, "number": 1})
        assert status == 200, answer
        assert "- Run pytest after every edit" in (project / "AGENTS.md").read_text()

        status, answer = viewer.write("/api/improvements/reject", {"project": key, "which": "1"})
        assert status == 200 and answer["rejected"] == "weakness 2"  # now the only pending one

        status, answer = viewer.write("/api/improvements/steer",
                                      {"project": key, "text": "Prefer tests over comments"})  # fmt: skip
        assert status == 200 and answer["guidance"] == "Prefer tests over comments"

        status, answer = viewer.write("/api/improvements/accept", {"project": key, "number": 1})
        assert status == 400 and "no pending improvements" in answer["error"]

        status, answer = viewer.write("/api/improvements/rollback", {"project": key})
        assert status == 200 and answer["rejected"] == ["weakness 1"], answer
        assert (project / "AGENTS.md").read_text() == original

        status, answer = viewer.write("/api/improvements/accept", {"project": "nope", "number": 1})
        assert status == 400 and answer["error"] == "project: no project 'nope' in this data home"
    with Store(onlooker_home) as store:
        scores = Scores(store)
        statuses = {i.id: i.status for i in scores.improvements(key)}
        assert statuses == {"imp-1": "rolled_back", "imp-2": "rejected"}
        assert scores.settings(key)[STEERING] == "Prefer tests over comments"
        # rejected from the viewer, then the rolled-back change's own (rollback rejects it)
        assert scores.rejections(key) == ["weakness 2", "weakness 1"]


def test_a_memory_is_edited_and_pinned_as_the_cli_does(onlooker_home: Path, project: Path) -> None:
    key = project_for(project)
    with Store(onlooker_home) as store:
        old, new = Memories(store).remember(
            [Extracted("Login needs a token", "Refresh first.", store.clock.now()),
             Extracted("Docs build with mkdocs", "Run mkdocs build.", store.clock.now())],
            project=key, session_id="old",
        )  # fmt: skip
    with running_viewer() as viewer:
        status, answer = viewer.write(f"/api/memories/{old.id}/edit",
                                      {"content": "Refresh with key sk-ant-api03-" + "a" * 40})  # fmt: skip
        assert status == 200 and answer["status"] == "edited"
        assert answer["memory"]["title"] == "Login needs a token"
        assert "sk-ant-api03" not in answer["memory"]["content"]  # redacted before it is stored
        status, answer = viewer.write(f"/api/memories/{old.id}/edit", {"title": "  "})
        assert status == 400 and answer["error"].startswith("title: ")
        status, answer = viewer.write("/api/memories/999/pin", {})
        assert status == 400 and answer["error"] == "id: no memory 999"
        status, answer = viewer.write(f"/api/memories/{old.id}/pin", {"pinned": "yes"})
        assert status == 400 and answer["error"].startswith("pinned: ")

        status, listed = viewer.request("GET", f"/api/memories?project={key}")
        assert [m["id"] for m in listed["memories"]] == [new.id, old.id]  # newest first
        status, answer = viewer.write(f"/api/memories/{old.id}/pin", {})
        assert answer == {"status": "pinned", "memory": old.id, "pinned": True}
        status, listed = viewer.request("GET", f"/api/memories?project={key}")
        assert [(m["id"], m["pinned"]) for m in listed["memories"]] == [(old.id, True),
                                                                       (new.id, False)]  # fmt: skip
    with running_viewer("--read-only") as viewer:
        status, _ = viewer.write(f"/api/memories/{old.id}/pin", {})
        assert status in (404, 405)
        status, _ = viewer.write(f"/api/memories/{old.id}/edit", {"title": "x"})
        assert status in (404, 405)
    with Store(onlooker_home) as store:
        manual = store.journal(key).path.read_text()
    assert '"kind":"memory_edited"' in manual and '"kind":"memory_pinned"' in manual
    told = context(hook({"session_id": "next", "transcript_path": "/tmp/next.jsonl",
                         "cwd": str(project), "hook_event_name": "SessionStart",
                         "source": "startup"}))  # fmt: skip
    assert told.index("Login needs a token") < told.index("mkdocs")  # pinned first
