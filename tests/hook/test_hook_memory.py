"""Memory through the real `onlooker hook` command: tool events become pending events (skipped
tools leave nothing), SessionStart injects the digest once per session, a project opts out."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from hook_runner import answer

from onlooker import FixedClock
from onlooker.memory import search
from onlooker.memory._memories import Extracted, Memories
from onlooker.store import Store, project_for
from onlooker.testing.openai_endpoint import ScriptedEndpoint


def hook(event: str, cwd: Path, session: str, **fields: Any) -> dict[str, Any]:
    return answer({"session_id": session, "transcript_path": f"/tmp/{session}.jsonl",
                   "cwd": str(cwd), "hook_event_name": event, **fields})  # fmt: skip


def tool(
    cwd: Path, session: str, name: str, tool_input: dict[str, Any], response: Any = None
) -> None:
    assert hook("PostToolUse", cwd, session, tool_name=name, tool_input=tool_input,
                tool_response=response, tool_use_id=f"toolu_{name}") == {}  # fmt: skip


def context(reply: dict[str, Any]) -> str:
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


def project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    (root / ".git").mkdir(parents=True)
    return root


def test_tool_events_are_queued_compressed(tmp_path: Path, onlooker_home: Path) -> None:
    shop = project(tmp_path, "shop")
    hook("SessionStart", shop, "s1", source="startup")
    tool(shop, "s1", "Read", {"file_path": f"{shop}/api.py"},
         {"type": "text", "file": {"filePath": f"{shop}/api.py", "content": "x", "numLines": 12}})  # fmt: skip
    tool(shop, "s1", "Glob", {"pattern": "**/*.py"}, {"filenames": []})
    tool(shop, "s1", "Bash", {"command": "export TOKEN=ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 && make"},
         {"stdout": "built", "stderr": "", "interrupted": False})  # fmt: skip
    hook("PostToolUseFailure", shop, "s1", tool_name="Bash", tool_input={"command": "pytest -q"},
         tool_use_id="toolu_f", error="Exit code 1\nFAILED tests/test_api.py::test_login - assert 401 == 200")  # fmt: skip
    with Store(onlooker_home) as store:
        pending = Memories(store).pending(project_for(shop), "s1")
        lines = [p.compressed for p in pending]
    assert pending[0].files == (f"{shop}/api.py",)  # kept whole, for search by file
    assert lines == [
        "Read api.py (12 lines)",  # relative to the project root
        "Ran `export TOKEN=[REDACTED:github_token] && make` → exit 0",
        "Ran `pytest -q` → exit 1: FAILED tests/test_api.py::test_login - assert 401 == 200",
    ]


def test_session_start_injects_once_per_session(
    tmp_path: Path,
    onlooker_home: Path,
) -> None:
    shop = project(tmp_path, "shop")
    with Store(onlooker_home) as store:
        Memories(store).remember(
            [Extracted("Login needs a fresh token", "Refresh before calling /login.", store.clock.now())],
            project=project_for(shop), session_id="old",
        )  # fmt: skip
    first = context(hook("SessionStart", shop, "s2", source="startup"))
    assert (
        first
        == "# [shop] recent context (conversation-memory)\n\n- Login needs a fresh token: Refresh before calling /login."
    )
    assert context(hook("SessionStart", shop, "s2", source="compact")) == ""
    assert context(hook("SessionStart", shop, "s2", source="resume")) == ""
    assert "Login needs a fresh token" in context(
        hook("SessionStart", shop, "s3", source="startup")
    )


def test_a_project_opts_out_with_a_marker_file(tmp_path: Path, onlooker_home: Path) -> None:
    quiet = project(tmp_path, "quiet")
    (quiet / ".onlooker").mkdir()
    (quiet / ".onlooker" / "no-memory").touch()
    with Store(onlooker_home) as store:
        Memories(store).remember(
            [Extracted("t", "c", store.clock.now())], project=project_for(quiet), session_id="old"
        )
    assert context(hook("SessionStart", quiet, "q1", source="startup")) == ""
    tool(quiet, "q1", "Read", {"file_path": f"{quiet}/a.py"})
    with Store(onlooker_home) as store:
        assert Memories(store).pending(project_for(quiet), "q1") == []


def test_the_project_config_switches_memory_off_and_sets_its_budget(
    tmp_path: Path, onlooker_home: Path
) -> None:
    quiet, terse = project(tmp_path, "quiet"), project(tmp_path, "terse")
    (quiet / "onlooker.yaml").write_text("memory:\n  enabled: false\n")
    (terse / "onlooker.yaml").write_text("memory:\n  maxObservations: 1\n")
    with Store(onlooker_home) as store:
        for root in (quiet, terse):
            Memories(store).remember(
                [Extracted(f"{root.name} first", "c", store.clock.now()),
                 Extracted(f"{root.name} second", "c", store.clock.now())],
                project=project_for(root), session_id="old",
            )  # fmt: skip
    assert context(hook("SessionStart", quiet, "q1", source="startup")) == ""
    tool(quiet, "q1", "Read", {"file_path": f"{quiet}/a.py"})
    digest = context(hook("SessionStart", terse, "t1", source="startup"))
    assert digest.count("\n- ") == 1
    tool(terse, "t1", "Read", {"file_path": f"{terse}/a.py"})
    with Store(onlooker_home) as store:
        assert Memories(store).pending(project_for(quiet), "q1") == []
        assert len(Memories(store).pending(project_for(terse), "t1")) == 1


def test_a_session_that_never_ended_is_extracted_when_the_next_one_starts(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No SessionEnd came (a killed terminal): the next SessionStart of the project queues the
    old session's final extraction, and the real worker runs it against a model endpoint."""
    shop = project(tmp_path, "shop")
    with Store(onlooker_home, clock=FixedClock()) as store:  # pending since 2026-01-01
        for n in range(12):
            Memories(store).add_pending(session_id="old", project=project_for(shop), tool_name="Edit",
                                        compressed=f"Edited {shop}/m{n}.py: a → b", files=[],
                                        at=store.clock.now())  # fmt: skip
    reply = '{"memories": [{"title": "Modules m0-m11 were edited", "content": "a became b."}]}'
    with ScriptedEndpoint(reply) as endpoint:
        monkeypatch.setenv("ONLOOKER_MEMORY_MODEL", endpoint.spec())
        monkeypatch.setenv("ONLOOKER_WORKER_IDLE", "2")
        hook("SessionStart", shop, "new", source="startup")
        deadline = time.monotonic() + 60
        with Store(onlooker_home) as store:
            while Memories(store).pending(project_for(shop), "old") and time.monotonic() < deadline:
                time.sleep(0.1)
            assert Memories(store).pending(project_for(shop), "old") == []
            found = search(store, "modules edited", "text", projects=[project_for(shop)])
            assert [m.title for m in found] == ["Modules m0-m11 were edited"]
        assert len(endpoint.requests) == 1


def test_a_secret_across_the_clip_of_a_long_output_is_not_stored(
    tmp_path: Path, onlooker_home: Path
) -> None:
    shop = project(tmp_path, "shop")
    token = "ghp_" + "Zq8RkT2mVx9LpW4nHs7JdF3bGc6YtE1uAa0K"
    out = "x" * 964 + " " + token + " " + "y" * 5000  # the cut at 1,000 falls inside the token
    command = "z" * 955 + " export GH=" + token + " " + "w" * 3000
    tool(
        shop,
        "s1",
        "Bash",
        {"command": command},
        {"stdout": out, "stderr": "", "interrupted": False},
    )
    stored = "".join(p.read_text() for p in onlooker_home.rglob("*.jsonl"))
    assert "ghp_" in command and stored and token[:10] not in stored and token[-10:] not in stored
    with Store(onlooker_home) as store:
        (pending,) = Memories(store).pending(project_for(shop), "s1")
        assert token[:10] not in pending.compressed


def test_an_abandoned_session_is_queued_once(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json as json_module

    import onlooker.daemon.worker
    from onlooker.hosts.claude_code.hook import HookHandler

    monkeypatch.setattr(onlooker.daemon.worker, "ensure_worker", lambda home: None)
    shop = project(tmp_path, "shop")
    with Store(onlooker_home, clock=FixedClock()) as store:
        for n in range(5):
            Memories(store).add_pending(session_id="old", project=project_for(shop), tool_name="Edit",
                                        compressed=f"Edited m{n}.py", files=[],
                                        at=store.clock.now())  # fmt: skip
    with Store(onlooker_home) as store:
        handler = HookHandler(store)
        for session in ("new1", "new2", "new3"):
            handler.handle(json_module.dumps({"session_id": session, "cwd": str(shop),
                                              "hook_event_name": "SessionStart",
                                              "source": "startup"}).encode())  # fmt: skip
        assert store.jobs.counts() == {"queued": 1}
        handler.close()
