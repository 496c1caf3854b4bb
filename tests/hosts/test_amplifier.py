"""The Amplifier hook module on the real amplifier-core: its test coordinator, a real
AmplifierSession run to completion (modules from tests/fixtures/amplifier/), and the
`amplifier-core validate hook` command."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from amplifier_core import AmplifierSession
from amplifier_core.testing import create_test_coordinator

from onlooker.config.document import ConfigInvalid
from onlooker.core.assessment import Finding
from onlooker.hosts.amplifier import EVENTS, ObservationsTool, module_settings, mount, mount_tool
from onlooker.store import Store, project_for
from onlooker.store.query import FindingQuery

FIXTURES = Path(__file__).parents[1] / "fixtures" / "amplifier"
MODULE = Path(__file__).parents[2] / "src" / "amplifier_module_hooks_onlooker"
FAILING = {"success": False, "output": "FAILED tests/test_app.py::test_login", "error": None}
BUNDLE_CONFIG: dict[str, Any] = {
    "hooks": [{"trigger": "response:complete", "priority": 5}],
    "execution": {"mode": "parallel_sync", "max_concurrent": 10, "timeout_per_observer": 30},
    "observers": [
        {
            "name": "Code Reviewer",
            "role": "Reviews code for quality and correctness",
            "focus": "Syntax errors, code smells, best practice violations",
            "model": "claude-3-5-sonnet",
            "watch": [{"type": "files", "paths": ["src/**/*.py"]}],
        }
    ],
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder without memory (nothing queued for a worker)."""
    root = tmp_path / "project"
    (root / ".onlooker").mkdir(parents=True)
    (root / ".onlooker" / "no-memory").touch()
    return root


def test_a_loop_of_failing_tool_calls_is_answered_with_the_stall_assessment(
    project: Path, onlooker_home: Path
) -> None:
    async def run() -> list[Any]:
        coordinator = create_test_coordinator()
        coordinator.register_capability("session.working_dir", str(project))
        cleanup = await mount(coordinator, {})
        assert sorted(coordinator.hooks.list_handlers()) == sorted(EVENTS)
        hooks = coordinator.hooks
        results = [await hooks.emit("session:start", {"session_id": "amp-1"})]
        results.append(await hooks.emit("prompt:submit", {"prompt": "make the tests pass"}))
        for _ in range(4):
            results.append(
                await hooks.emit(
                    "tool:post",
                    {
                        "session_id": "amp-1",
                        "tool_name": "bash",
                        "tool_input": {"command": "pytest tests/test_app.py"},
                        "result": FAILING,
                    },
                )
            )
        results.append(await hooks.emit("orchestrator:complete", {"status": "success"}))
        results.append(await hooks.emit("session:end", {"status": "completed"}))
        cleanup()
        return results

    results = asyncio.run(run())
    actions = [r.action for r in results]
    assert actions[:5] == ["continue"] * 5  # the stall is not there until the fourth failure
    stalled = results[5]
    assert stalled.action == "inject_context"
    assert stalled.context_injection_role == "system"
    assert stalled.ephemeral is False
    text = stalled.context_injection
    assert text.startswith('<system-reminder source="observers">\n')
    assert text.endswith("\n</system-reminder>")
    assert "Stall" in text and "pytest tests/test_app.py" in text
    with Store(onlooker_home) as store:
        found = store.query(FindingQuery(project=project_for(project), observers=("Stall",)))
        assert [o.finding.severity for o in found.observations] == ["medium"]
        assert store.load_session("amp-1") is not None


def test_a_failed_tool_is_recorded_and_its_feedback_held_for_the_next_delivery(
    project: Path,
) -> None:
    async def run() -> list[Any]:
        coordinator = create_test_coordinator()
        coordinator.register_capability("session.working_dir", str(project))
        cleanup = await mount(coordinator, {"ephemeral": True})
        hooks = coordinator.hooks
        answers = []
        for _ in range(4):  # orchestrators do not process tool:error results: hold them
            answers.append(
                await hooks.emit(
                    "tool:error",
                    {
                        "tool_name": "bash",
                        "tool_input": {"command": "make"},
                        "error": {"type": "RuntimeError", "msg": "make: *** [all] Error 2"},
                    },
                )
            )
        answers.append(await hooks.emit("prompt:submit", {"prompt": "go on"}))
        cleanup()
        return answers

    answers = asyncio.run(run())
    assert [a.action for a in answers[:4]] == ["continue"] * 4
    assert answers[4].action == "inject_context" and answers[4].ephemeral is True
    assert "Stall" in answers[4].context_injection and "make" in answers[4].context_injection


def test_the_bundle_config_is_the_module_config_and_bad_fields_are_named() -> None:
    settings = module_settings(BUNDLE_CONFIG)
    (reviewer,) = settings.overrides["reviewers"]
    assert reviewer.name == "Code Reviewer"
    assert settings.overrides["execution"].mode == "parallel"
    with pytest.raises(ConfigInvalid) as bad:
        module_settings({"execution": {"mode": "sometimes"}, "ephemeral": "yes", "colour": 1})
    message = str(bad.value)
    assert "config.execution.mode" in message and "config.ephemeral" in message
    assert "colour" in message


@pytest.fixture
def amplifier_modules(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[dict[str, Any]]]]:
    """The test's modules importable as Amplifier finds them (`amplifier_module_<id>`)."""
    monkeypatch.syspath_prepend(str(FIXTURES))
    from amplifier_module_provider_scripted import REQUESTS  # type: ignore[import-not-found]

    REQUESTS.clear()
    yield REQUESTS
    for name in [n for n in sys.modules if n.startswith("amplifier_module_")]:
        if "scripted" in name or "failing" in name:
            del sys.modules[name]


def test_a_real_session_puts_the_stall_into_what_the_model_receives_next(
    project: Path, onlooker_home: Path, amplifier_modules: list[list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(project)
    call = {"tool": "bash", "arguments": {"command": "pytest tests/test_app.py"}}
    script = [{"tool_calls": [{**call, "id": f"call-{i}"}]} for i in range(5)]
    plan = {
        "session": {"orchestrator": "loop-scripted", "context": "context-scripted"},
        "providers": [
            {"module": "provider-scripted", "config": {"script": [*script, {"text": "I give up."}]}}
        ],
        "tools": [{"module": "tool-failing"}],
        "hooks": [{"module": "hooks-onlooker", "config": {}}],  # found by its entry point
    }

    async def run() -> str:
        async with AmplifierSession(plan, session_id="amp-real") as session:
            return await session.execute("make the tests pass")

    assert asyncio.run(run()) == "I give up."
    requests = amplifier_modules
    assert len(requests) == 6
    seen = [
        "\n".join(str(m.get("content", "")) for m in r if m["role"] == "system") for r in requests
    ]
    assert not any("Stall" in s for s in seen[:4])
    assert "Stall" in seen[4] and '<system-reminder source="observers">' in seen[4]
    with Store(onlooker_home) as store:
        session = store.load_session("amp-real")
        assert session is not None
    journal = next((onlooker_home).rglob("amp-real*.jsonl")).read_text()
    for kind in ("session_started", "user_prompt", "tool_call", "turn_ended", "session_ended"):
        assert f'"kind": "{kind}"' in journal or f'"kind":"{kind}"' in journal
    [start] = [line for line in journal.splitlines() if '"session_started"' in line]
    assert json.loads(start)["host"] == "amplifier"  # the viewer's host filter reads it


def test_amplifier_core_validates_the_module() -> None:
    done = subprocess.run(
        [str(Path(sys.executable).with_name("amplifier-core")), "validate", "hook", str(MODULE)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "protocol_compliance" in done.stdout and "✗" not in done.stdout


TOOL_MODULE = Path(__file__).parents[2] / "src" / "amplifier_module_tool_onlooker_observations"


def test_the_observations_tool_acts_on_what_the_hook_module_found_by_its_ids(
    project: Path, onlooker_home: Path
) -> None:
    async def run() -> tuple[list[Any], str]:
        coordinator = create_test_coordinator()
        coordinator.register_capability("session.working_dir", str(project))
        cleanups = [await mount(coordinator, {}), await mount_tool(coordinator, {})]
        tool = coordinator.get("tools", "observations")
        assert isinstance(tool, ObservationsTool) and tool.name == "observations"
        await coordinator.hooks.emit("session:start", {"session_id": "amp-t"})
        for _ in range(4):
            await coordinator.hooks.emit(
                "tool:post", {"session_id": "amp-t", "tool_name": "bash",
                              "tool_input": {"command": "pytest tests/test_app.py"},
                              "result": FAILING},
            )  # fmt: skip
        listed = await tool.execute({"operation": "list", "filters": {"status": "open"}})
        stall = next(o for o in listed.output["observations"] if o["observer"] == "Stall")
        short = stall["id"][:6]
        results = [
            listed,
            await tool.execute({"operation": "acknowledge", "observation_id": short}),
            await tool.execute({"operation": "resolve", "observation_id": short,
                                "resolution_note": "ran only the failing test, fixed the hash"}),
            await tool.execute({"operation": "resolve", "observation_id": "zz"}),
            await tool.execute({"operation": "forget"}),
        ]  # fmt: skip
        for cleanup in cleanups:
            cleanup()
        return results, stall["id"]

    results, stall_id = asyncio.run(run())
    listed, acknowledged, resolved, too_short, unknown = results
    assert listed.success and stall_id in {o["id"] for o in listed.output["observations"]}
    assert acknowledged.success and acknowledged.output["observations"][0]["status"] == (
        "acknowledged"
    )
    assert resolved.success and resolved.output["observations"][0]["id"] == stall_id
    for refused, field in ((too_short, "observation_id"), (unknown, "operation")):
        assert refused.success is False and field in refused.error["message"]
    with Store(onlooker_home) as store:  # the same store, ids and lifecycle as MCP and the CLI
        (stored,) = store.get([stall_id], project_for(project))
    assert stored.finding.status == "resolved"
    assert stored.finding.resolution_note == "ran only the failing test, fixed the hash"
    shown = subprocess.run(
        [str(Path(sys.executable).with_name("onlooker")), "observations", "show", stall_id[:6],
         "--project", project_for(project), "--json"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert '"status": "resolved"' in shown.stdout and stall_id in shown.stdout


def test_the_tool_module_takes_no_config_and_says_so() -> None:
    async def run() -> None:
        await mount_tool(create_test_coordinator(), {"colour": 1})

    with pytest.raises(ConfigInvalid) as bad:
        asyncio.run(run())
    assert "config.colour" in str(bad.value)


def test_in_a_real_session_the_agent_resolves_what_it_was_told_by_id(
    project: Path, onlooker_home: Path, amplifier_modules: list[list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(project)
    with Store(onlooker_home) as store:  # a reviewer's finding the agent was told about earlier
        (told,) = store.create(
            [Finding(content="hash_token uses sha256; the spec says sha512", observer="Logic",
                     severity="high", source_type="file", source_ref="src/tokens.py:12")],
            project=project_for(project),
        )  # fmt: skip
    short = told.observation.id[:8]
    calls = [
        {"tool": "observations", "arguments": {"operation": "list"}},
        {"tool": "observations", "arguments": {"operation": "acknowledge", "observation_id": short}},
        {"tool": "observations", "arguments": {"operation": "resolve", "observation_id": short,
                                               "resolution_note": "hash_token now uses sha512"}},
    ]  # fmt: skip
    script = [{"tool_calls": [{**call, "id": f"call-{i}"}]} for i, call in enumerate(calls)]
    plan = {
        "session": {"orchestrator": "loop-scripted", "context": "context-scripted"},
        "providers": [
            {"module": "provider-scripted", "config": {"script": [*script, {"text": "Fixed."}]}}
        ],
        "tools": [{"module": "tool-onlooker-observations"}],  # found by its entry point
        "hooks": [{"module": "hooks-onlooker", "config": {}}],
    }

    async def run() -> str:
        async with AmplifierSession(plan, session_id="amp-obs") as session:
            return await session.execute("Fix what the reviewer found.")

    assert asyncio.run(run()) == "Fixed."
    requests = amplifier_modules
    seen = [m["content"] for m in requests[1] if m["role"] == "tool"]
    assert len(seen) == 1 and told.observation.id in seen[0]  # the list the model read
    resolved = [m["content"] for m in requests[3] if m["role"] == "tool"][-1]
    assert '"status": "resolved"' in resolved.replace("'", '"')
    with Store(onlooker_home) as store:
        (after,) = store.get([told.observation.id], project_for(project))
    assert after.finding.status == "resolved"
    assert after.finding.resolution_note == "hash_token now uses sha512"
    journal = next(onlooker_home.rglob("amp-obs*.jsonl")).read_text()
    assert journal.count('"finding_resolved"') == 1  # the change is the session's own


def test_amplifier_core_validates_the_tool_module() -> None:
    done = subprocess.run(
        [str(Path(sys.executable).with_name("amplifier-core")), "validate", "tool",
         str(TOOL_MODULE)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "protocol_compliance" in done.stdout and "✗" not in done.stdout


def test_a_conversation_reviewer_reads_what_the_model_wrote_in_a_real_session(
    project: Path, onlooker_home: Path, amplifier_modules: list[list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from onlooker.testing import ScriptedEndpoint

    monkeypatch.chdir(project)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    said = f"The login test fails because the session cookie expires; token {token}."
    thought = "Weighing the clock skew against the cookie lifetime."
    call = {"tool": "bash", "arguments": {"command": "pytest tests/test_app.py"}, "id": "call-1"}
    script = [{"thinking": thought, "said": said, "tool_calls": [call]}, {"text": "Fixed it."}]
    with ScriptedEndpoint() as reviewer_model:
        reviewer = {
            "name": "Logic Checker",
            "role": "Checks the agent's reasoning",
            "focus": "Conclusions that do not follow",
            "model": reviewer_model.spec("logic"),
            "watch": [{"type": "conversation", "include_reasoning": False}],
        }
        config = {**BUNDLE_CONFIG, "observers": [reviewer]}
        plan = {
            "session": {"orchestrator": "loop-scripted", "context": "context-scripted"},
            "providers": [{"module": "provider-scripted", "config": {"script": script}}],
            "tools": [{"module": "tool-failing"}],
            "hooks": [{"module": "hooks-onlooker", "config": config}],
        }

        async def run() -> str:
            async with AmplifierSession(plan, session_id="amp-words") as session:
                return await session.execute("make the login test pass")

        assert asyncio.run(run()) == "Fixed it."
    (request,) = reviewer_model.requests
    sent = "\n".join(str(m.get("content") or "") for m in request["messages"])
    assert "The login test fails because the session cookie expires" in sent
    assert "Fixed it." in sent and "pytest tests/test_app.py" in sent
    assert token not in sent and "[REDACTED:github_token]" in sent
    assert thought not in sent  # the reviewer does not take reasoning
    assert sent.index("cookie expires") < sent.index("pytest tests/test_app.py")
