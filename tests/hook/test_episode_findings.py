"""Through the real hook command, a trajectory finding belongs to its session and episode: one
finding per episode, updated as it goes on; never in another session's summary; expired (not
resolved: nobody acted on it) when the same call succeeds or the session ends."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from hook_runner import answer

from onlooker.store import FindingQuery, Store, project_for

COMMAND = {"command": "pytest tests/test_tokens.py -q", "description": "Token tests"}
ERROR = (
    "Exit code 1\nFAILED tests/test_tokens.py::test_hash - AssertionError: sha512 expected\n"
    "1 failed, 4 passed"
)


def base(session: str, cwd: Path, event: str) -> dict[str, Any]:
    return {"session_id": session, "transcript_path": f"/tmp/{session}.jsonl", "cwd": str(cwd),
            "permission_mode": "acceptEdits", "hook_event_name": event}  # fmt: skip


def context(reply: dict[str, Any]) -> str:
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


def start(session: str, cwd: Path, prompt: str) -> str:
    answer({**base(session, cwd, "SessionStart"), "source": "startup"})
    return context(answer({**base(session, cwd, "UserPromptSubmit"), "prompt": prompt}))


def pytest_call(session: str, cwd: Path, n: int, *, ok: bool) -> dict[str, Any]:
    if ok:
        payload = {**base(session, cwd, "PostToolUse"), "tool_response": {
            "stdout": "5 passed", "stderr": "", "interrupted": False}}  # fmt: skip
    else:
        payload = {**base(session, cwd, "PostToolUseFailure"), "error": ERROR,
                   "is_interrupt": False}  # fmt: skip
    return answer({**payload, "tool_name": "Bash", "tool_input": COMMAND,
                   "tool_use_id": f"toolu_{session}_{n:03d}"})  # fmt: skip


def trajectory(home: Path, project: str, session: str) -> list[Any]:
    with Store(home) as store:
        page = store.query(FindingQuery(project=project, session_id=session))
    return [o.finding for o in page.observations if o.finding.source_type == "conversation"]


def test_a_test_loop_is_one_finding_of_its_session_expired_when_the_call_succeeds(
    tmp_path: Path, onlooker_home: Path
) -> None:
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True)
    project = project_for(app)
    start("loop-a", app, "Switch the token hash from sha256 to sha512.")
    told = [context(pytest_call("loop-a", app, n, ok=False)) for n in range(1, 9)]
    assert any("pytest tests/test_tokens.py" in text for text in told), told

    found = trajectory(onlooker_home, project, "loop-a")
    assert found, "the loop was not reported"
    per_episode = Counter(f.metadata["episode"] for f in found)
    assert set(per_episode.values()) == {1}, per_episode
    assert all(f.status == "open" for f in found)

    other = start("fresh-b", app, "Add a changelog entry.")
    assert "pytest" not in other and "same error" not in other, other

    pytest_call("loop-a", app, 9, ok=True)
    after = trajectory(onlooker_home, project, "loop-a")
    assert {f.id for f in after} == {f.id for f in found}
    assert all(f.status == "expired" for f in after), [(f.content, f.status) for f in after]
    assert all("succeeded" in (f.resolution_note or "") for f in after)


def test_an_episode_still_open_ends_with_its_session(tmp_path: Path, onlooker_home: Path) -> None:
    app = tmp_path / "app"
    (app / ".git").mkdir(parents=True)
    start("ending", app, "Fix the token tests.")
    for n in range(1, 8):
        pytest_call("ending", app, n, ok=False)
    assert trajectory(onlooker_home, project_for(app), "ending")
    answer({**base("ending", app, "SessionEnd"), "reason": "exit"})
    after = trajectory(onlooker_home, project_for(app), "ending")
    assert after and all(f.status == "expired" for f in after)
    assert {f.resolution_note for f in after} == {"the session ended"}
