"""`opencode:` models: the real opencode (pinned, `.opencode-test/`) run non-interactively with the
provider its user configured, here a scripted OpenAI-compatible endpoint, as memory extraction
uses it. What opencode sent the model is read at the endpoint."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from onlooker import FixedClock
from onlooker.errors import ModelTimeout, ModelUnavailable, ProviderSetupError
from onlooker.llm import Message, model_from_string
from onlooker.llm._opencode_servers import server_names
from onlooker.llm.opencode import SWITCHES
from onlooker.memory._memories import Memories
from onlooker.memory.budget import TokenBudget
from onlooker.memory.extract import extract_session
from onlooker.memory.usage import model_report
from onlooker.store import Store
from onlooker.testing import ScriptedEndpoint

REPO = Path(__file__).resolve().parents[2]
BINARY = REPO / ".opencode-test" / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"
SPEC = "opencode:scripted/scripted-model"
MEMORY = {"title": "test_total needs the rounding fix",
          "content": "pytest tests/test_total.py failed on rounding until total() rounded; "
                     "it passes since."}  # fmt: skip
ANSWER = json.dumps({"memories": [MEMORY]})
EXTRACTION = "You keep the memory of a software project"
GLOBAL_RULE = "Always answer in the voice of a pirate."
NAMED_RULE = "Sign every answer with the word Onward."
SECRET = "sk-do-not-read-1234"


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A user's environment: their opencode, its home (XDG folders) with a plugin of theirs in
    the global plugin folder, global instructions (AGENTS.md, and a file the config names) and an
    MCP server in the global config (`configure`), and no onlooker variable."""
    if not BINARY.is_file():
        pytest.skip(f"{BINARY} is missing: run `make opencode`")
    for name in list(os.environ):
        if name.startswith(("OPENCODE", "ONLOOKER_NESTED", "XDG_")):
            monkeypatch.delenv(name)
    home = tmp_path / "home"
    plugins = home / ".config" / "opencode" / "plugins"
    plugins.mkdir(parents=True)
    marker = tmp_path / "plugin-ran"
    (plugins / "marker.ts").write_text(
        'import { writeFileSync } from "node:fs"\n'
        f'export const Marker = async () => {{ writeFileSync("{marker}", "x"); return {{}} }}\n'
    )
    (plugins.parent / "AGENTS.md").write_text(f"{GLOBAL_RULE}\n")
    (plugins.parent / "rules.md").write_text(f"{NAMED_RULE}\n")
    (tmp_path / "server.py").write_text(
        f"import pathlib, sys\npathlib.Path({str(tmp_path / 'server-started')!r}).write_text('x')\n"
        "sys.exit(0)\n"
    )
    monkeypatch.setenv("HOME", str(home))
    for variable, folder in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        monkeypatch.setenv(variable, str(home / folder))  # fmt: skip
    monkeypatch.setenv("OPENCODE_DISABLE_MODELS_FETCH", "1")
    monkeypatch.setenv("ONLOOKER_OPENCODE_CLI", str(BINARY))
    yield home


def configure(home: Path, endpoint: ScriptedEndpoint) -> None:
    """The user's global opencode config: the scripted endpoint is their provider and model, an
    instructions file, and an MCP server of theirs (`probe`, which marks that it started)."""
    server = home.parent / "server.py"
    config = {
        "instructions": ["rules.md"],
        "mcp": {"probe": {"type": "local", "command": [sys.executable, str(server)],
                          "environment": {"PROBE_KEY": SECRET}}},
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "model": "scripted/scripted-model",
        "provider": {"scripted": {
            "npm": "@ai-sdk/openai-compatible", "name": "Scripted",
            "options": {"baseURL": endpoint.url, "apiKey": "x"},
            "models": {"scripted-model": {"name": "Scripted", "tool_call": True}},
        }},
    }  # fmt: skip
    (home / ".config" / "opencode" / "opencode.json").write_text(json.dumps(config))


def queue(memories: Memories, clock: FixedClock) -> list[str]:
    lines = []
    for n in range(12):
        clock.advance(1)
        outcome = "exit 0" if n >= 8 else "exit 1: AssertionError: 10.0 != 9.999"
        line = f"Ran `pytest tests/test_total.py -q` → {outcome}"
        if n == 8:
            line = "Edited src/shop/total.py (round to cents)"
        lines.append(line)
        memories.add_pending(session_id="s1", project="shop", tool_name="Bash", compressed=line,
                             at=clock.now())  # fmt: skip
    return lines


def test_extraction_runs_the_users_opencode_with_nothing_but_the_prompt(
    user: Path, tmp_path: Path, clock: FixedClock
) -> None:
    with ScriptedEndpoint(reply=ANSWER) as endpoint:
        configure(user, endpoint)
        model = model_from_string(SPEC)
        with Store(tmp_path / "onlooker", clock=clock) as store:
            memories = Memories(store)
            queue(memories, clock)
            report = extract_session(memories, model, project="shop", session_id="s1",
                                     budget=TokenBudget(50_000, 500_000))  # fmt: skip
            shown = model_report(memories, configured=SPEC, home=tmp_path / "onlooker",
                                 now=clock.now())  # fmt: skip
    (request,) = endpoint.requests  # one call: no title asked, no second step
    assert not request.get("tools") and "tool_choice" not in request
    system, user_message = request["messages"]
    assert system["role"] == "system" and EXTRACTION in system["content"]
    assert "It must match this JSON schema" in system["content"]
    assert "You are opencode" not in system["content"]  # its prompt is onlooker's, not the agent's
    sent = user_message["content"]
    sent = sent if isinstance(sent, str) else "".join(part["text"] for part in sent)
    assert (
        "Ran `pytest tests/test_total.py -q` → exit 1: AssertionError: 10.0 != 9.999 (×8)" in sent
    )
    assert "Edited src/shop/total.py (round to cents)" in sent and not sent.startswith('"')
    assert [(m.title, m.content) for m in report.memories] == [(MEMORY["title"], MEMORY["content"])]
    assert shown["calls"] == 1 and shown["input_tokens"] > 0 and shown["output_tokens"] > 0
    assert shown["unpriced_calls"] == 1  # opencode has no price for the scripted model
    assert not (tmp_path / "plugin-ran").exists()  # no plugin of the user's ran in it
    assert not (tmp_path / "server-started").exists()  # no MCP server of theirs started
    assert GLOBAL_RULE not in json.dumps(request)  # nor their global instructions reached it
    assert NAMED_RULE not in json.dumps(request)
    data = user / ".local" / "share" / "opencode"
    assert list(data.glob("opencode*.db*")) == []  # no session kept in the user's history
    assert {p.name for p in data.iterdir()} <= {"log", "repos", "bin", "tool-output"}


def test_the_users_own_config_content_keeps_its_keys(
    user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user who configures opencode through OPENCODE_CONFIG_CONTENT keeps it: the run's agent
    is added to it."""
    with ScriptedEndpoint(reply=ANSWER) as endpoint:
        config = {"model": "scripted/scripted-model", "provider": {"scripted": {
            "npm": "@ai-sdk/openai-compatible", "options": {"baseURL": endpoint.url,
            "apiKey": "x"}, "models": {"scripted-model": {"name": "Scripted"}}}}}  # fmt: skip
        monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps(config))
        done = asyncio.run(model_from_string("opencode:default").complete(
            [Message("system", "Answer in JSON."), Message("user", "What did we keep?")],
            timeout=120))  # fmt: skip
    assert json.loads(done.text) == {"memories": [MEMORY]}
    (request,) = endpoint.requests
    assert request["model"] == "scripted-model" and not request.get("tools")


def test_an_error_from_the_provider_is_model_unavailable(user: Path) -> None:
    reply: Any = (400, json.dumps({"error": {"message": "context length exceeded"}}))
    with ScriptedEndpoint(reply=reply) as endpoint:
        configure(user, endpoint)
        model = model_from_string(SPEC)
        with pytest.raises(ModelUnavailable, match="context length exceeded"):
            asyncio.run(model.complete([Message("user", "Events: none")], timeout=120))


def test_a_slow_answer_times_out_and_the_run_is_stopped(user: Path) -> None:
    with ScriptedEndpoint(reply=ANSWER, latency=60) as endpoint:
        configure(user, endpoint)
        model = model_from_string(SPEC)
        started = time.monotonic()
        with pytest.raises(ModelTimeout):
            asyncio.run(model.complete([Message("user", "Events: none")], timeout=20))
        assert time.monotonic() - started < 30
        left = subprocess.run(["pgrep", "-f", "--agent onlooker-extract"], capture_output=True,
                              text=True)  # fmt: skip
    assert left.stdout.strip() == ""


def test_a_wrong_model_string_or_no_opencode_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONLOOKER_OPENCODE_CLI", str(tmp_path / "nothing"))
    with pytest.raises(ProviderSetupError, match="not an executable"):
        model_from_string(SPEC)
    monkeypatch.delenv("ONLOOKER_OPENCODE_CLI")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ProviderSetupError, match="no `opencode` on PATH"):
        model_from_string("opencode:default")
    with pytest.raises(ProviderSetupError, match=r"opencode:<provider>/<model>"):
        model_from_string("opencode:haiku")
    with pytest.raises(ProviderSetupError, match="allowed: executable"):
        model_from_string(SPEC, api_key="x")


def test_the_mcp_server_names_come_from_opencode_and_nothing_else(user: Path) -> None:
    """The lookup answers the names of the configured servers only (no value of the config, such
    as a server's environment, reaches onlooker) and starts none of them."""
    with ScriptedEndpoint(reply=ANSWER) as endpoint:
        configure(user, endpoint)
        names = asyncio.run(server_names(BINARY, SWITCHES))
    assert names == ("probe",)
    assert not (user.parent / "server-started").exists()
    assert endpoint.requests == []


def test_without_the_switches_the_users_servers_and_rules_do_reach_a_run(
    user: Path, tmp_path: Path
) -> None:
    """The control: the same config, run as `opencode run` is without onlooker's switches, starts
    the server and sends both rules, so the extraction test's absences are the switches' doing."""
    with ScriptedEndpoint(reply="Ahoy") as endpoint:
        configure(user, endpoint)
        folder = tmp_path / "elsewhere"
        folder.mkdir()
        env = {**os.environ, "OPENCODE_DB": ":memory:", "OPENCODE_DISABLE_PROJECT_CONFIG": "1"}
        run = subprocess.run([str(BINARY), "run", "--pure", "Hello"], cwd=folder, env=env,
                             capture_output=True, text=True, timeout=300)  # fmt: skip
        assert run.returncode == 0, run.stderr[-2000:]
        sent = json.dumps(endpoint.requests)
    assert GLOBAL_RULE in sent and NAMED_RULE in sent
    assert (tmp_path / "server-started").exists()


def test_a_config_folder_of_the_users_own_is_kept(
    user: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user whose provider is configured in their own `$OPENCODE_CONFIG_DIR` keeps it: the run
    replaces that folder only when the user has none."""
    folder = tmp_path / "their-config"
    folder.mkdir()
    monkeypatch.setenv("OPENCODE_CONFIG_DIR", str(folder))
    with ScriptedEndpoint(reply=ANSWER) as endpoint:
        configure(user, endpoint)
        (user / ".config" / "opencode" / "opencode.json").rename(folder / "opencode.json")
        done = asyncio.run(model_from_string("opencode:default").complete(
            [Message("user", "What did we keep?")], timeout=120))  # fmt: skip
    assert json.loads(done.text) == {"memories": [MEMORY]}
    (request,) = endpoint.requests
    assert request["model"] == "scripted-model"
