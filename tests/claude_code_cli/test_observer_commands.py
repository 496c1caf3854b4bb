"""The observer inside the real Claude Code, through the plugin `onlooker install claude-code
--plugin` writes: its slash commands run their shell block (`${CLAUDE_PLUGIN_ROOT}` expanded,
allowed by the command file's `allowed-tools` alone, typed quotes and `$` kept as text) and the
answer reaches the model; a waiting score notice reaches the user's output; after `/compact` the
scores' context is injected once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent import Agent

from onlooker.scoring import Scores
from onlooker.scoring.run import add_notice
from onlooker.store import Store
from onlooker.store.score_records import Improvement, ScoreCard, SessionScore
from onlooker.testing import AnthropicEndpoint, ClaudeCode, HeadlessRun

pytestmark = pytest.mark.slow

GUIDANCE = """don't "guess"; run `make test` with $HOME set, ! twice"""


def with_plugin(agent: Agent, tmp_path: Path) -> Path:
    plugin = tmp_path / "onlooker-plugin"
    agent.onlooker("install", "claude-code", "--plugin", str(plugin))
    agent.write(".onlooker/config.yaml", "scoring:\n  model: openai:gpt-4o-mini\n")
    return plugin


def run(agent: Agent, api: AnthropicEndpoint, plugin: Path, prompt: str, *args: str) -> HeadlessRun:
    """A headless run with the plugin, where Bash is allowed only by what the plugin allows."""
    cli = ClaudeCode(api, agent.home, executable=agent.claude, allowed_tools="Read")
    done = cli.run(prompt, cwd=agent.project, args=["--plugin-dir", str(plugin), *args])
    ended = json.loads(done.stdout.splitlines()[-1]) if done.stdout.strip() else {}
    assert done.returncode == 0 and ended.get("is_error") is False, done.stderr[-2000:]
    return done


def test_slash_commands_run_the_observer_and_the_model_gets_the_answer(
    agent: Agent, tmp_path: Path
) -> None:
    plugin = with_plugin(agent, tmp_path)
    with AnthropicEndpoint() as api:
        run(agent, api, plugin, f"/onlooker:steer {GUIDANCE}")
        run(agent, api, plugin, "/onlooker:status")
        run(agent, api, plugin, "/onlooker:scores")
        run(agent, api, plugin, "/onlooker:accept 3")
    steered, status, scores, refused = (turn.last_user_text for turn in api.turns)
    assert f"Guidance: {GUIDANCE}" in steered  # typed text is data: quotes, `…`, $ and ! kept
    terminal = agent.onlooker("status").stdout.strip()
    assert terminal and terminal in status  # `/onlooker:status` is what `onlooker status` shows
    assert "Observer: 0 sessions" in scores and "Show it to the user as it is" in scores
    assert "permission check failed" not in status + scores + steered
    assert "onlooker: no pending improvements" in refused
    assert agent.onlooker("observer", "steer").stdout == f"Guidance: {GUIDANCE}\n"


def test_apply_typed_by_a_person_applies_and_says_what_changed(
    agent: Agent, tmp_path: Path
) -> None:
    """`/onlooker:apply` runs headless, where nothing can be asked: a person typing it means
    it, so it applies (the bare CLI without a terminal only shows the change)."""
    plugin = with_plugin(agent, tmp_path)
    agents_md = agent.write("AGENTS.md", "# Rules\n")
    with Store(agent.onlooker_home) as store:
        for n, line in enumerate(("Run the tests after editing", "Keep diffs small")):
            Scores(store).save(Improvement(id=f"i{n}", project=agent.key, target="agents_md",
                                           pattern=f"weakness {n}", text=line))  # fmt: skip
    shown = agent.onlooker("observer", "apply", check=False)
    assert shown.returncode == 1 and "would change AGENTS.md" in shown.stdout
    assert agents_md.read_text() == "# Rules\n"
    with AnthropicEndpoint() as api:
        run(agent, api, plugin, "/onlooker:apply")
        run(agent, api, plugin, "/onlooker:accept 1")
    applied, accepted = (turn.last_user_text for turn in api.turns)
    assert "AGENTS.md" in applied and "updated, in section" in applied
    assert "+ - Run the tests after editing" in applied and "for weakness: weakness 0" in applied
    assert "+ - Keep diffs small" in accepted and "permission check failed" not in accepted
    assert agents_md.read_text().endswith("- Run the tests after editing\n- Keep diffs small\n")


def test_a_waiting_notice_reaches_the_users_output(agent: Agent, tmp_path: Path) -> None:
    plugin = with_plugin(agent, tmp_path)
    with Store(agent.onlooker_home) as store:
        add_notice(Scores(store), agent.key, ["onlooker: ⚠ low adherence score 30% (main)"])
    with AnthropicEndpoint() as api:
        done = run(agent, api, plugin, "What next?", "--output-format", "stream-json", "--verbose")
    shown = [json.loads(line) for line in done.stdout.splitlines() if '"informational"' in line]
    assert [m["content"] for m in shown] == [
        "UserPromptSubmit says: onlooker: ⚠ low adherence score 30% (main)"
    ]
    assert "low adherence" not in api.turns[0].text  # for the user, not the model
    with Store(agent.onlooker_home) as store:
        assert Scores(store).settings(agent.key).get("notice", "") == ""  # shown once


def test_after_compact_the_scores_context_is_injected_once(agent: Agent, tmp_path: Path) -> None:
    plugin = with_plugin(agent, tmp_path)
    with Store(agent.onlooker_home) as store:
        card = ScoreCard("earlier", 1, 0.45, weaknesses=("runs no tests",))
        Scores(store).record(SessionScore(card, agent.key, agent_name="main"), max_history=10)
    with AnthropicEndpoint() as api:
        first = run(agent, api, plugin, "Look around.")
    assert "average adherence" not in api.turns[0].text
    with AnthropicEndpoint(summary="The agent looked around.") as api:
        cli = ClaudeCode(api, agent.home, executable=agent.claude, allowed_tools="Read")
        compacted = cli.run("/compact", cwd=agent.project, resume=first.session_id,
                            args=["--plugin-dir", str(plugin)])  # fmt: skip
    assert compacted.result.get("local_command") == "compact"
    with AnthropicEndpoint() as api:
        cli = ClaudeCode(api, agent.home, executable=agent.claude, allowed_tools="Read")
        cli.run("What next?", cwd=agent.project, resume=first.session_id,
                args=["--plugin-dir", str(plugin)])  # fmt: skip
        cli.run("And then?", cwd=agent.project, resume=first.session_id,
                args=["--plugin-dir", str(plugin)])  # fmt: skip
    after, later = api.turns
    contexts = "\n".join(after.hook_context("SessionStart"))
    assert "1 scored sessions in this project, average adherence" in contexts
    assert "- runs no tests (×1)" in contexts
    assert after.text.count("average adherence") == 1
    assert later.text.count("average adherence") == 1  # the same one, kept: not injected again


def test_the_model_is_told_of_the_skill_for_acting_on_observations(
    agent: Agent, tmp_path: Path
) -> None:
    plugin = with_plugin(agent, tmp_path)
    with AnthropicEndpoint() as api:
        run(agent, api, plugin, "What needs doing?")
    (turn,) = api.turns
    sent = turn.system + "\n" + turn.text
    assert "onlooker-observations" in sent
    assert "acknowledge or resolve them by id" in sent
