"""What the viewer reads: every text redacted on the way out (even a secret a journal holds raw),
the overview charts drawn by the report's chart code, and the hooks' recorded health."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from viewer import Agent, running_viewer

from onlooker.core.assessment import Finding
from onlooker.core.events import UserPrompt
from onlooker.scoring import Scores
from onlooker.store import Store, project_for
from onlooker.store.score_records import ScoreCard, SessionScore

SECRET = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


def test_text_is_redacted_on_the_way_out(onlooker_home: Path, project: Path) -> None:
    agent = Agent(project, "secret")
    agent.start(f"Use the token {SECRET} to push.")
    key = project_for(project)
    with Store(onlooker_home) as store:  # a journal line written raw, as an old version might have
        store.append([UserPrompt(session_id="secret", seq=99, at=store.clock.now(),
                                 text=f"again: {SECRET}")], project=key, session_id="secret")  # fmt: skip
    with running_viewer() as viewer:
        status, timeline = viewer.request("GET", f"/api/timeline?project={key}&session=secret")
    assert status == 200
    prompts = [i["text"] for i in timeline["items"] if i["kind"] == "user_prompt"]
    assert len(prompts) == 2 and all("[REDACTED:github_token]" in p for p in prompts), prompts
    assert SECRET not in str(timeline)


def test_the_overview_draws_findings_runs_and_cost(onlooker_home: Path) -> None:
    with Store(onlooker_home) as store:
        now = store.clock.now()
        store.create([
            Finding(content=f"issue {n}", observer=("Stall", "Drift")[n % 2],
                    severity=("high", "medium", "low")[n % 3],
                    created_at=now - timedelta(hours=n))
            for n in range(12)
        ], project="shop-00000000")  # fmt: skip
        store.record_observer_run("security-review", session_id="s1", project="shop-00000000",
                                  status="ok", duration=1.0, model="openai:gpt-4o-mini",
                                  input_tokens=1500, output_tokens=200, cost_usd=0.25)  # fmt: skip
    with running_viewer() as viewer:
        status, charts = viewer.request("GET", "/api/overview")
        assert status == 200 and set(charts) == {"severity", "observer", "cost"}
        assert charts["severity"].startswith("<svg") and "sev-high" in charts["severity"]
        assert "Stall" in charts["observer"] and "Drift" in charts["observer"]
        assert "1,500 in · 200 out · $0.2500" in charts["cost"]
        _, one = viewer.request("GET", "/api/overview?project=nope")
        assert one == {}


def test_the_overview_draws_scores_per_agent(onlooker_home: Path) -> None:
    with Store(onlooker_home) as store:
        now = int(store.clock.now().timestamp())
        for n, (agent, score) in enumerate([("coder", 0.6), ("coder", 0.8), ("reviewer", 0.7)]):
            card = ScoreCard(session_id=f"s{n}", timestamp=now + 60 * n, overall_score=score)
            Scores(store).record(SessionScore(card=card, project="shop-00000000",
                                              agent_name=agent), max_history=100)  # fmt: skip
    with running_viewer() as viewer:
        _, charts = viewer.request("GET", "/api/overview?project=shop-00000000")
    assert charts["scores"].startswith("<svg") and charts["scores"].count("<polyline") == 2
    assert "coder" in charts["scores"] and "reviewer" in charts["scores"]


def test_hook_health_shows_what_is_recorded(onlooker_home: Path) -> None:
    with Store(onlooker_home) as store:
        store.record_observer_run("security-review", session_id="s1", project="shop-00000000",
                                  status="error", error="ReviewerError: model answered 500")  # fmt: skip
    logs = onlooker_home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    (logs / "hookd.log").write_text(
        "2026-11-25 10:00:00,000 INFO onlooker.daemon hook service 1 listening\n"
        f"2026-11-25 10:00:01,000 ERROR onlooker.daemon request failed: token {SECRET}\n"
    )
    with running_viewer() as viewer:
        status, health = viewer.request("GET", "/api/health")
    assert status == 200
    assert health["run_errors"] == 1
    assert health["latest_run_errors"] == [
        {"observer": "security-review", "error": "ReviewerError: model answered 500"}
    ]
    assert len(health["log_errors"]) == 1 and "[REDACTED:github_token]" in health["log_errors"][0]
    assert health["spooled"] == [] and health["refused"] == []


def test_hook_answer_times_are_recorded_by_the_service(onlooker_home: Path, project: Path) -> None:
    agent = Agent(project, "timed")
    agent.start("Time the hooks.")
    for _ in range(3):
        agent.failing_test_run()
    with running_viewer() as viewer:
        _, health = viewer.request("GET", "/api/health")
    latency = health["latency"]
    assert latency["hooks"] == 5 and latency["failed"] == 0  # start, prompt, three calls
    assert 0 < latency["p50_ms"] <= latency["p95_ms"] < 30_000
    assert health["service_pid"] is not None
