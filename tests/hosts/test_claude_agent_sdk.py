"""The Claude Agent SDK adapter driving the real SDK and its bundled Claude Code CLI.

The CLI talks to a scripted Messages API on 127.0.0.1 (`messages_api.py`): no network and no paid
model. Its configuration lives in the test's tmp dir. Each test starts the CLI, which takes a few
seconds, so they are marked slow.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage
from messages_api import (
    MessagesAPI,
    Reply,
    Text,
    ToolUse,
    bundled_cli,
    cli_env,
    message_texts,
    tool_results,
)

from onlooker import (
    Assessment,
    Engine,
    FixedClock,
    ObserverContext,
    SessionInfo,
    SubagentStopped,
    ToolCall,
    Trigger,
    TurnEnded,
    UserPrompt,
    observer,
)
from onlooker.hosts.sdk.claude_agent_sdk import ClaudeAgentHooks, with_onlooker
from onlooker.observers import builtin_observers
from onlooker.store import Store
from onlooker.store.query import FindingQuery

STALL = "[Trajectory Assessment - Stall"
FAILING = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})
SECRET = "sk-ant-api03-" + "Qm9uZXMgYW5kIHN0b25lcw" * 2
PROJECT = "shop"


def agent_options(
    tmp_path: Path, api: MessagesAPI, tools: Sequence[str] = ("Bash",)
) -> ClaudeAgentOptions:
    """Options that run the bundled CLI against `api`, with every file it writes under tmp."""
    project = tmp_path / PROJECT
    project.mkdir(exist_ok=True)
    return ClaudeAgentOptions(
        cli_path=bundled_cli(),
        cwd=project,
        env=cli_env(api, tmp_path),
        model="claude-sonnet-4-5",
        allowed_tools=list(tools),
        setting_sources=[],
        max_turns=20,
    )


def converse(options: ClaudeAgentOptions, prompts: Sequence[str]) -> list[ResultMessage]:
    """Send each prompt in turn to one client, reading every reply; the results of the turns."""

    async def run() -> list[ResultMessage]:
        results = []
        async with ClaudeSDKClient(options) as client:
            for prompt in prompts:
                await client.query(prompt)
                async for message in client.receive_response():
                    if isinstance(message, ResultMessage):
                        results.append(message)
        return results

    return asyncio.run(asyncio.wait_for(run(), timeout=90))


def run_agent(
    tmp_path: Path,
    hooks: ClaudeAgentHooks,
    script: Sequence[Reply],
    prompts: Sequence[str],
    tools: Sequence[str] = ("Bash",),
) -> tuple[MessagesAPI, str]:
    """Run the agent over the script; the API as it was called and the session id."""
    with MessagesAPI(script) as api:
        options = agent_options(tmp_path, api, tools)
        options.hooks = hooks.matchers()
        results = converse(options, prompts)
    assert [r.is_error for r in results] == [False] * len(prompts), results
    return api, results[0].session_id


@pytest.fixture
def store(onlooker_home: Path) -> Iterator[Store]:
    with Store(onlooker_home) as store:
        yield store


@observer(
    name="Wrap-up",
    trigger=Trigger(on_event=("turn_ended", "subagent_stopped")),
    when=lambda ctx: isinstance(ctx.event, TurnEnded | SubagentStopped),
)
def wrap_up(ctx: ObserverContext) -> Assessment:
    """Speaks at every stop, so the test sees where that feedback is delivered."""
    event = ctx.event
    who = f"subagent {event.agent_type}" if isinstance(event, SubagentStopped) else "turn"
    return Assessment(summary=f"A {who} ended after {ctx.tool_call_count} tool calls.")


@pytest.mark.slow
def test_repeated_failing_bash_calls_put_the_stall_warning_into_the_next_request(
    tmp_path: Path, store: Store, clock: FixedClock
) -> None:
    engine = Engine(builtin_observers(), clock=clock)
    hooks = ClaudeAgentHooks(engine, store=store, project=PROJECT)

    api, session_id = run_agent(
        tmp_path, hooks, [FAILING] * 6, ["Read the plan and follow it.", "What now?"]
    )

    assert hooks.engine_for(session_id) is engine
    calls = engine.session[ToolCall].all()
    assert [(c.tool, c.input["command"], c.ok) for c in calls] == [
        ("Bash", "cat notes/plan.txt", False)
    ] * 6
    assert "No such file or directory" in (calls[0].error or "")
    stalls = [a for a in engine.session[Assessment].all() if a.observer_name == "Stall"]
    assert [a.severity for a in stalls] == ["medium", "high"]
    # A warning made at call k rides on call k's tool result, in the model's next request.
    warned_at = {a.call_index for a in stalls}
    for turn, body in enumerate(api.turns[1:7], start=1):
        last_result = list(tool_results(body))[-1][1]
        assert (STALL in last_result) == (turn in warned_at), (turn, last_result)
    warned = list(tool_results(api.turns[stalls[0].call_index]))[-1][1]
    assert "PostToolUseFailure:Bash hook additional context" in warned
    assert "The same call keeps failing the same way." in warned

    stored = store.query(FindingQuery(project=PROJECT, observers=("Stall",)))
    # One episode, one finding: the second warning raised the first one's severity.
    assert [o.finding.severity for o in stored.observations] == ["high"]
    # The next prompt brings the open findings with it.
    assert len(api.turns) == 8, "Stop was answered with nothing, so each prompt ended once"
    prompt = message_texts(api.turns[7])[-1]
    assert "UserPromptSubmit hook additional context: <observations>" in prompt
    assert "**Stall**" in prompt and "What now?" in prompt
    assert len(engine.session[TurnEnded].all()) == 2
    assert [p.text for p in engine.session[UserPrompt].all()] == [
        "Read the plan and follow it.",
        "What now?",
    ]


@pytest.mark.slow
def test_feedback_at_a_stop_waits_for_the_next_prompt_and_subagents_have_their_own_session(
    tmp_path: Path, store: Store, clock: FixedClock
) -> None:
    engine = Engine([*builtin_observers(), wrap_up], clock=clock)
    hooks = ClaudeAgentHooks(engine, store=store, project=PROJECT)
    delegate = ToolUse(
        "Agent",
        {
            "description": "Read the plan",
            "prompt": "Read notes/plan.txt and report.",
            "subagent_type": "general-purpose",
            "run_in_background": False,
        },
    )
    script = [delegate, FAILING, FAILING, Text("The plan file is missing."), FAILING]

    api, session_id = run_agent(
        tmp_path, hooks, script, ["Carry out the plan.", "And now?"], tools=("Bash", "Agent")
    )

    stopped = engine.session[SubagentStopped].all()
    assert [s.agent_type for s in stopped] == ["general-purpose"]
    child_id = f"{session_id}/{stopped[0].agent_id}"
    assert hooks.engine_for(child_id) is None, "a stopped subagent's engine is let go"
    child = store.load_session(child_id)
    assert child is not None
    info = child[SessionInfo].latest()
    assert info is not None and info.started.parent_session_id == session_id
    assert [c.input["command"] for c in child[ToolCall].all()] == ["cat notes/plan.txt"] * 2
    assert [c.tool for c in engine.session[ToolCall].all()] == ["Agent", "Bash"]

    # The subagent's stop is not answered; its feedback comes with the Agent tool's result.
    agent_result = dict(tool_results(api.turns[4]))
    delegated = next(text for text in agent_result.values() if "Subagent" in text)
    assert "[Trajectory Assessment - Wrap-up]" in delegated
    assert "A subagent general-purpose ended after 0 tool calls." in delegated
    # The turn's stop is not answered either; its feedback comes with the next prompt.
    assert len(api.turns) == 7
    prompt = message_texts(api.turns[6])[-1]
    assert "A turn ended after 2 tool calls." in prompt and "And now?" in prompt


@pytest.mark.slow
def test_secrets_in_tool_output_are_redacted_before_storage_and_reused_hooks_keep_sessions_apart(
    tmp_path: Path, store: Store, onlooker_home: Path, clock: FixedClock
) -> None:
    engine = Engine(builtin_observers(), clock=clock)
    hooks = ClaudeAgentHooks(engine, store=store, project=PROJECT)
    leak = ToolUse("Bash", {"command": f"echo 'deploy key {SECRET}'", "description": "Show key"})

    api, first = run_agent(tmp_path, hooks, [leak], ["Show me the deploy key."])
    _, second = run_agent(tmp_path, hooks, [FAILING], ["Read the plan."])

    assert SECRET in json.dumps(api.turns[1]), "the model itself saw the key (the CLI sent it)"
    output = engine.session[ToolCall].all()[0].output
    assert SECRET not in output and "[REDACTED:anthropic_key]" in output
    journals = "".join(p.read_text() for p in onlooker_home.rglob("*.jsonl"))
    assert "[REDACTED:anthropic_key]" in journals
    starts = [json.loads(line) for line in journals.splitlines() if '"session_started"' in line]
    assert starts and {s["host"] for s in starts} == {"claude-agent-sdk"}  # first seen mid-way
    files = [p for p in onlooker_home.rglob("*") if p.is_file()]
    assert files and not [p for p in files if SECRET.encode() in p.read_bytes()]

    assert first != second
    other = hooks.engine_for(second)
    assert other is not None and other is not engine
    assert [c.input["command"] for c in other.session[ToolCall].all()] == ["cat notes/plan.txt"]
    assert len(engine.session[ToolCall].all()) == 1


@pytest.mark.slow
def test_with_onlooker_keeps_the_hooks_already_in_the_options(
    tmp_path: Path, store: Store, clock: FixedClock
) -> None:
    seen: list[str] = []

    async def own_hook(input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        seen.append(input["hook_event_name"])
        return {}

    from claude_agent_sdk import HookMatcher

    engine = Engine(builtin_observers(), clock=clock)
    with MessagesAPI([FAILING] * 4) as api:
        options = agent_options(tmp_path, api)
        options.hooks = {"PostToolUseFailure": [HookMatcher(hooks=[own_hook])]}
        results = converse(with_onlooker(options, engine, store=store), ["Read the plan."])

    assert not results[0].is_error
    assert seen == ["PostToolUseFailure"] * 4
    assert len(engine.session[ToolCall].all()) == 4
    assert STALL in list(tool_results(api.turns[4]))[-1][1]


def test_a_callback_never_raises_into_the_sdk(clock: FixedClock) -> None:
    hooks = ClaudeAgentHooks(Engine(builtin_observers(), clock=clock))
    bad: list[Any] = [
        {},
        {"hook_event_name": "PostToolUse"},
        {"hook_event_name": "Teleport", "session_id": "s"},
        {"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": 7},
        "not a mapping",
    ]

    answers = [asyncio.run(hooks.callback(item, None, {"signal": None})) for item in bad]

    assert answers == [{}] * len(bad)
    assert hooks.engine.session.seq == 0 and hooks.engine_for("s") is None
