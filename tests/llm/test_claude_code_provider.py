"""`claude-code:` models: the real Claude Code CLI (pinned, `.claude-code/`) run non-interactively
against the scripted Anthropic endpoint, as a user's own login would be used."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from onlooker.errors import ModelTimeout, ModelUnavailable, ProviderSetupError
from onlooker.llm import Message, model_from_string
from onlooker.testing import AnthropicEndpoint, ClaudeCodeMissing, find_claude
from onlooker.testing.anthropic_endpoint import Failure
from onlooker.testing.messages_request import MessagesRequest

REPO = Path(__file__).resolve().parents[2]
SCHEMA = {
    "type": "object",
    "properties": {"memories": {"type": "array", "items": {"type": "string"}}},
    "required": ["memories"],
}
ANSWER = '{"memories": ["pytest passes since the fixture was fixed"]}'


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A user's environment: their Claude Code, its home with settings that hold a hook and a
    CLAUDE.md, and a key and base URL it authenticates with (onlooker passes them through)."""
    try:
        claude = find_claude(REPO)
    except ClaudeCodeMissing as exc:
        pytest.skip(str(exc))
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "CLAUDE", "ONLOOKER_NESTED")):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    hook = {"hooks": [{"type": "command", "command": f"touch {tmp_path / 'hook-ran'}"}]}
    settings.write_text(json.dumps({"hooks": {"SessionStart": [hook], "UserPromptSubmit": [hook]}}))
    (home / ".claude" / "CLAUDE.md").write_text("USER MEMORY FILE\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ONLOOKER_CLAUDE_CLI", str(claude))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-user-own")
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    monkeypatch.setenv("DISABLE_AUTOUPDATER", "1")
    yield home


def ask(endpoint: AnthropicEndpoint, monkeypatch: pytest.MonkeyPatch, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.url)
    model = model_from_string("claude-code:haiku")
    messages = [
        Message("system", "You keep the memory of a project."),
        Message("user", "Events:\n1. Ran `pytest -q` → exit 0"),
    ]
    return asyncio.run(model.complete(messages, schema=SCHEMA, timeout=timeout))


def test_a_call_runs_the_users_claude_code_with_nothing_but_the_prompt(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with AnthropicEndpoint(side=ANSWER, input_tokens=321) as endpoint:
        done = ask(endpoint, monkeypatch)
    assert done.data == {"memories": ["pytest passes since the fixture was fixed"]}
    assert done.usage.input_tokens == 321 and done.usage.output_tokens > 0
    assert done.usage.cost_usd is not None and done.usage.cost_usd > 0  # as the CLI reports it
    (request,) = [r for r in endpoint.requests if r.is_messages]
    assert request.tools == [] and not request.is_turn
    assert request.headers["x-api-key"] == "sk-user-own"  # the user's own credentials, untouched
    assert "You keep the memory of a project." in request.system
    assert "It must match this JSON schema" in request.system
    assert "Ran `pytest -q` → exit 0" in request.last_user_text
    sent = json.dumps(request.body)
    assert "USER MEMORY FILE" not in sent  # no CLAUDE.md, no settings
    assert not (tmp_path / "hook-ran").exists()  # the user's hooks did not run
    projects = user / ".claude" / "projects"
    assert not projects.exists() or not list(projects.rglob("*.jsonl"))  # no session kept


def test_an_api_error_is_model_unavailable_with_its_message(
    user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refuse = Failure(400, "invalid_request_error", "prompt is too long")
    with AnthropicEndpoint(side=lambda _: refuse) as endpoint, pytest.raises(ModelUnavailable):
        ask(endpoint, monkeypatch)


def test_a_slow_answer_times_out_and_the_run_is_stopped(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def slow(_: MessagesRequest) -> str:
        time.sleep(20)
        return ANSWER

    runs = tmp_path / "runs"  # the nested run's folder is made here, so its processes are ours
    runs.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(runs))
    with AnthropicEndpoint(side=slow) as endpoint:
        started = time.monotonic()
        with pytest.raises(ModelTimeout):
            ask(endpoint, monkeypatch, timeout=8.0)
        assert time.monotonic() - started < 12
        assert _working_in(runs) == []  # the whole process group was killed


def _working_in(folder: Path) -> list[int]:
    """Pids of the processes whose working directory is under `folder` (gone or not)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if cwd.startswith(str(folder)):
            found.append(int(proc.name))
    return found


def test_no_claude_code_is_a_setup_error_that_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ONLOOKER_CLAUDE_CLI", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ProviderSetupError, match="no `claude` on PATH"):
        model_from_string("claude-code:haiku")
    monkeypatch.setenv("ONLOOKER_CLAUDE_CLI", str(tmp_path / "nothing"))
    with pytest.raises(ProviderSetupError, match="not an executable"):
        model_from_string("claude-code:haiku")
    with pytest.raises(ProviderSetupError, match="allowed: executable"):
        model_from_string("claude-code:haiku", api_key="x")


def test_a_hook_inside_a_nested_run_does_nothing(tmp_path: Path) -> None:
    """The re-entrancy guard: with ONLOOKER_NESTED set, the hook client answers nothing, starts
    no hook service and spools nothing."""
    entry = REPO / "src" / "onlooker" / "daemon" / "entry.py"
    home = tmp_path / "data"
    env = {"PATH": os.environ["PATH"], "ONLOOKER_HOME": str(home), "ONLOOKER_NESTED": "1"}
    payload = json.dumps({"hook_event_name": "SessionStart", "session_id": "s", "cwd": "/"})
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(entry)], input=payload, env=env,
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout == ""
    assert not home.exists()
