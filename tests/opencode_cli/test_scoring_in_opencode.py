"""Scores in the real opencode, judged by a scripted endpoint: a primary agent is recorded by name
(`plan`, not `main`); `/observer score` queues the session's score and its notice reaches that
opencode session (opencode's log), not the model and not a Claude Code session of the project;
`/observer score <unknown id>` says the id is unknown; an improvement of the `plan` agent's prompt
is written where opencode reads it, and the next `plan` run has it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from opencode import Opencode, user_text

from onlooker.scoring import Scores
from onlooker.scoring.run import add_notice
from onlooker.store import Store
from onlooker.store.home import journal_path, project_for
from onlooker.testing import ScriptedEndpoint

pytestmark = pytest.mark.slow

RULE = "Write the plan as numbered steps"
FOR_CLAUDE = "onlooker: 🟢 adherence 90% (main)"
NAMES = ("instruction_following", "completeness", "proactiveness", "code_quality",
         "communication")  # fmt: skip
JUDGED = {
    "overall_score": 0.35, "categories": dict.fromkeys(NAMES, 0.35), "strengths": [],
    "weaknesses": ["plans without concrete steps"], "suggested_agent_prompt_update": RULE,
}  # fmt: skip


def answer(body: dict[str, Any]) -> Any:
    """A title for the small model; an observer answer shown as it is; else a plan."""
    if not body.get("tools"):
        return "Planning"
    asked = user_text(body)
    return f"Shown: {asked[-400:]}" if "onlooker's answer" in asked else "Here is a plan."


def sessions(opencode: Opencode) -> list[str]:
    folder = journal_path(opencode.onlooker_home, project_for(opencode.project), "x").parent
    found = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    return [p.stem for p in found if not p.name.startswith("_")]


def wait(condition: Any, what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_scores_notices_and_agent_prompts_in_opencode(opencode: Opencode) -> None:
    opencode.onlooker("install", "opencode")
    with ScriptedEndpoint(reply=JUDGED) as judge, ScriptedEndpoint(reply=answer) as endpoint:
        (opencode.project / ".onlooker" / "config.yaml").write_text(
            f'scoring:\n  model: "{judge.spec()}"\n  retries: 0\n  min_observations_for_update: 1\n'
        )
        opencode.prepare(endpoint)
        with Store(opencode.onlooker_home) as store:
            add_notice(Scores(store), project_for(opencode.project), [FOR_CLAUDE])
        opencode.run("plan the release", "--agent", "plan")
        (session,) = sessions(opencode)
        asked = opencode.run("score", "--session", session, "--command", "observer")
        assert "is being scored" in asked.stdout

        def scored() -> list[dict[str, Any]]:
            found = opencode.onlooker("observer", "history", "--json").stdout
            return list(json.loads(found)["sessions"])

        wait(lambda: scored(), "the session's score")
        (row,) = scored()
        assert (row["session_id"], row["agent_name"]) == (session, "plan")
        before = len(endpoint.requests)
        shown = opencode.run("thanks", "--session", session, "--print-logs")
        assert "score 35% (plan)" in shown.stderr  # the notice, in this session's log
        assert "for weakness: plans without concrete steps" in shown.stderr
        assert not any("adherence" in user_text(r) for r in endpoint.requests[before:])
        with Store(opencode.onlooker_home) as store:  # the Claude Code notice still waits
            waiting = Scores(store).settings(project_for(opencode.project))
            assert waiting["notice"] == FOR_CLAUDE

        unknown = opencode.run("score no-such-session", "--command", "observer")
        assert "no session 'no-such-session'" in unknown.stdout

        accepted = opencode.onlooker("observer", "accept", "1", "--yes").stdout
        prompt = opencode.project / ".opencode" / "agents" / "plan.md"
        assert str(prompt) in accepted
        assert f"- {RULE}" in prompt.read_text()
        assert not (opencode.project / ".claude").exists()
        before = len(endpoint.requests)
        opencode.run("plan the next release", "--agent", "plan")
        system = json.dumps([r["messages"][0] for r in endpoint.requests[before:]
                             if r.get("tools")])  # fmt: skip
        assert RULE in system  # opencode read the improved prompt
    assert not Path(opencode.project / ".claude" / "agents" / "plan.md").exists()


def test_sessions_that_only_ran_observer_commands_are_not_scored(opencode: Opencode) -> None:
    opencode.worker_idle = "60"  # as installed: up when a turn's score comes due, 30 s later
    opencode.onlooker("install", "opencode")
    low = JUDGED | {"overall_score": 0.2, "suggested_agents_md_update": RULE}
    with ScriptedEndpoint(reply=low) as judge, ScriptedEndpoint(reply=answer) as endpoint:
        (opencode.project / ".onlooker" / "config.yaml").write_text(
            f'scoring:\n  model: "{judge.spec()}"\n  retries: 0\n  min_observations_for_update: 1\n'
        )
        opencode.prepare(endpoint)
        shown = opencode.run("status", "--command", "observer")
        assert "Observer: 0 sessions" in shown.stdout
        (status,) = sessions(opencode)
        opencode.run("history", "--session", status, "--command", "observer")
        opencode.run("history", "--command", "observer")
        commands = sessions(opencode)
        assert len(commands) == 2
        # While their turns' jobs wait out the delay, a real session is run and scored.
        opencode.run("plan the release", "--agent", "plan")
        (real,) = set(sessions(opencode)) - set(commands)
        opencode.run("score", "--session", real, "--command", "observer")
        wait(lambda: bool(json.loads(
            opencode.onlooker("observer", "history", "--json").stdout)["sessions"]),
            "the real session's score")  # fmt: skip
        for session_id in commands:  # each turn's job comes due and is done without a judge
            wait(lambda s=session_id: settled(opencode, s), f"{session_id}'s job to settle")
        assert len(judge.requests) == 1  # the real session's: none for onlooker's own commands
        assert "plan the release" in json.dumps(judge.requests[0])
        history = json.loads(opencode.onlooker("observer", "history", "--json").stdout)
        assert [r["session_id"] for r in history["sessions"]] == [real]
        assert history["failed"] == []
        pending = json.loads(opencode.onlooker("observer", "suggest", "--json").stdout)["pending"]
        assert {p["pattern"] for p in pending} == {"plans without concrete steps"}  # its verdict's


def settled(opencode: Opencode, session_id: str) -> bool:
    from onlooker.scoring import JOB_KIND

    with Store(opencode.onlooker_home) as store:
        return not store.jobs.unfinished(JOB_KIND, session_id)
