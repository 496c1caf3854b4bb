"""Scoring at the runtime's delivery points, through Claude Code's hook handler: a score is queued
(never judged in the hook) when a turn ends, once per session while it waits; a waiting notice
reaches the user as `systemMessage`; a compacted session gets its scores' context."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from onlooker.hosts.claude_code.hook import HookHandler
from onlooker.scoring import JOB_KIND, Scores
from onlooker.scoring.run import add_notice, take_notice
from onlooker.store import Store, project_for

CONFIG = "scoring:\n  model: openai:gpt-4o-mini\n"


def hook(handler: HookHandler, cwd: Path, name: str, **fields: Any) -> dict[str, Any]:
    raw = json.dumps({"hook_event_name": name, "session_id": "s1", "cwd": str(cwd), **fields})
    answer = handler.handle(raw.encode())
    return json.loads(answer) if answer else {}


def queued(store: Store) -> list[int]:
    rows = store.index._read(
        lambda c: c.execute("SELECT id FROM jobs WHERE kind = ?", (JOB_KIND,)).fetchall()
    )
    return [r[0] for r in rows]


def test_turns_queue_one_score_and_notices_reach_the_user(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "config.yaml").write_text(CONFIG)
    woken: list[Path] = []
    with Store(tmp_path / "home") as store:
        handler = HookHandler(store, wake_worker=woken.append)
        hook(handler, project, "SessionStart", source="startup")
        hook(handler, project, "UserPromptSubmit", prompt="fix it")
        hook(handler, project, "Stop")
        hook(handler, project, "UserPromptSubmit", prompt="and the docs")
        hook(handler, project, "Stop")
        assert len(queued(store)) == 1 and woken
        assert store.jobs.claim("w") is None  # it waits for the turns that follow
        add_notice(Scores(store), project_for(project), ["onlooker: 🟡 adherence 65%"])
        answer = hook(handler, project, "UserPromptSubmit", prompt="next")
        assert answer["systemMessage"] == "onlooker: 🟡 adherence 65%"
        assert take_notice(Scores(store), project_for(project)) == ""
        hook(handler, project, "SessionEnd", reason="other")
        job = store.jobs.claim("w")  # the session's end makes the waiting score due now
        assert job is not None and job.kind == JOB_KIND and len(queued(store)) == 1
        handler.close()


def test_no_model_no_job_and_compaction_gets_the_scores_context(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    with Store(tmp_path / "home") as store:
        handler = HookHandler(store, wake_worker=lambda home: None)
        hook(handler, project, "SessionStart", source="startup")
        hook(handler, project, "UserPromptSubmit", prompt="fix it")
        hook(handler, project, "Stop")
        assert queued(store) == []
        from onlooker.store.score_records import ScoreCard, SessionScore

        card = ScoreCard("old", 1, 0.5, weaknesses=("runs no tests",))
        Scores(store).record(
            SessionScore(card, project_for(project), agent_name="main"), max_history=10
        )
        answer = hook(handler, project, "SessionStart", source="compact")
        context = answer["hookSpecificOutput"]["additionalContext"]
        assert "average adherence" in context and "runs no tests" in context
        handler.close()


def test_turn_interval_zero_scores_only_at_the_end(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "config.yaml").write_text(CONFIG + "  turn_interval: 0\n")
    with Store(tmp_path / "home") as store:
        handler = HookHandler(store, wake_worker=lambda home: None)
        hook(handler, project, "SessionStart", source="startup")
        hook(handler, project, "UserPromptSubmit", prompt="fix it")
        hook(handler, project, "Stop")
        assert queued(store) == []
        hook(handler, project, "SessionEnd", reason="other")
        assert len(queued(store)) == 1
        handler.close()
