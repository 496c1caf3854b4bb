"""The observer tools through the real `mcp` client and a real `onlooker mcp` server: each is the
observer command of its name over the same store, and bad arguments are refused naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_harness import McpServer, project_folder, running_server

from onlooker.core.events import SessionStarted, TurnEnded, UserPrompt
from onlooker.scoring import ScoringSettings, score_session
from onlooker.store import Store
from onlooker.testing import ScriptedModel

WEAK = "runs no tests after editing"
OBSERVER_TOOLS = [
    "observer_auto", "observer_history", "observer_improve", "observer_reject",
    "observer_rejections", "observer_score_agent", "observer_status", "observer_steer",
    "observer_unreject",
]  # fmt: skip


def answer(score: float) -> dict[str, object]:
    names = ("instruction_following", "completeness", "proactiveness", "code_quality",
             "communication")  # fmt: skip
    return {"overall_score": score, "categories": dict.fromkeys(names, score),
            "strengths": ["clear summaries"], "weaknesses": [WEAK]}  # fmt: skip


def three_low_scores(home: Path, root: Path) -> None:
    project = project_folder(root)
    model = ScriptedModel([answer(0.3)])
    with Store(home) as store:
        for n in range(3):
            session = f"s{n}"
            at = store.clock.now()
            store.append(
                [
                    SessionStarted(session_id=session, seq=1, at=at, source="startup"),
                    UserPrompt(session_id=session, seq=2, at=at, text="add a test"),
                    TurnEnded(session_id=session, seq=3, at=at, last_message="Done."),
                ],
                project=project,
                session_id=session,
            )
            score_session(store, model, project=project, session_id=session, root=root,
                          settings=ScoringSettings(model="scripted:x"), automatic=True)  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServer]:
    root = tmp_path_factory.mktemp("observer-tools")
    (root / ".onlooker").mkdir()
    (root / ".onlooker" / "config.yaml").write_text("scoring:\n  model: openai:gpt-4o-mini\n")
    three_low_scores(root / "onlooker-home", root)
    with running_server(root) as running:
        yield running


def test_the_nine_observer_tools_are_listed_with_schemas(server: McpServer) -> None:
    tools = {tool.name: tool for tool in server.tools()}
    assert sorted(n for n in tools if n.startswith("observer_")) == OBSERVER_TOOLS
    assert tools["observer_auto"].input_schema["required"] == ["enabled"]
    assert tools["observer_status"].annotations.read_only_hint is True
    assert tools["observer_reject"].annotations.read_only_hint is False


def test_status_improve_history_and_an_agents_score(server: McpServer) -> None:
    status = server.data("observer_status")
    assert status["aggregate"]["total_sessions"] == 3 and status["scoring"] is True
    assert status["aggregate"]["top_weaknesses"][0]["pattern"] == WEAK
    [pending] = server.data("observer_improve")["pending"]
    assert pending["pattern"] == WEAK and pending["target"] == "agents_md"
    assert len(server.data("observer_history")["sessions"]) == 3
    latest = server.data("observer_score_agent", {"agent": "main"})["score"]
    assert latest["session_id"] == "s2" and latest["score_card"]["overall_score"] == 0.3
    missing = server.refusal("observer_score_agent", {"agent": "nobody"})
    assert "no scores for agent 'nobody'" in missing["error"] and "main" in missing["error"]


def test_reject_unreject_steer_and_auto_change_what_the_commands_see(server: McpServer) -> None:
    beyond = server.refusal("observer_reject", {"index": 9})
    assert "improvement 9 does not exist: 1 to 1 are pending" in beyond["error"]
    assert server.data("observer_reject", {"index": 1})["rejected"] == WEAK
    assert server.data("observer_rejections")["rejections"] == [WEAK]
    assert server.data("observer_improve")["pending"] == []
    assert server.data("observer_unreject", {"pattern": "no tests"})["restored"] == [WEAK]
    assert server.data("observer_rejections")["rejections"] == []
    server.data("observer_steer", {"guidance": "favour small diffs"})
    assert server.data("observer_steer")["guidance"] == "favour small diffs"
    assert server.data("observer_steer", {"guidance": "reset"})["guidance"] == ""
    on = server.data("observer_auto", {"enabled": True, "target": "agent_prompts"})
    assert on == {"status": "ok", "auto_update_agent_prompts": True}
    assert server.data("observer_auto", {"enabled": False})["auto_update_agents_md"] is False


@pytest.mark.parametrize(
    ("name", "arguments", "field", "says"),
    [
        ("observer_reject", {}, "index", "give index"),
        ("observer_reject", {"index": 1, "pattern": "x"}, "pattern", "not both"),
        ("observer_reject", {"index": 0}, "index", "must be 1 or more"),
        ("observer_auto", {"enabled": "yes"}, "enabled", "must be a boolean"),
        ("observer_auto", {"enabled": True, "target": "all"}, "target", "is not one of"),
        ("observer_score_agent", {}, "agent", "is required"),
        ("observer_unreject", {"pattern": "  "}, "pattern", "must not be empty"),
        ("observer_status", {"agnet": "main"}, "agnet", "unknown argument"),
        ("observer_unreject", {"pattern": "never rejected"}, None, "no rejected pattern"),
    ],
)
def test_bad_arguments_are_refused_naming_the_field(
    server: McpServer, name: str, arguments: dict[str, object], field: str | None, says: str
) -> None:
    refused = server.refusal(name, arguments)
    assert refused["error"].startswith(f"{name}: ") and says in refused["error"]
    assert refused.get("field") == field
