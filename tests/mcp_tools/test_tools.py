"""`Tools.call` without the SDK: a failure nobody foresaw is a refusal naming the tool."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from onlooker.mcp import Tools
from onlooker.mcp import search as search_module


def test_an_unexpected_failure_is_a_logged_refusal_naming_the_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setattr("onlooker.mcp.tools.get_items", broken)
    tools = Tools(tmp_path / "home", "demo", vectors=None)
    try:
        with caplog.at_level(logging.ERROR, logger="onlooker.mcp"):
            answer = tools.call("get_observations", {"ids": [1]})
        assert answer.error
        assert answer.data["status"] == "error"
        assert answer.text.startswith("get_observations: ")
        assert "RuntimeError: disk on fire" in answer.text
        assert any("get_observations" in r.getMessage() for r in caplog.records)
        assert not tools.call("search", {"query": "still serving"}).error
    finally:
        tools.close()


def test_a_failed_call_is_logged_without_the_secrets_in_its_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("index gone")

    secret = "sk-ant-api03-" + "Qm9uZXMgYW5kIHN0b25lcw" * 2
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setattr("onlooker.mcp.tools.search_items", broken)
    tools = Tools(tmp_path / "home", "demo", vectors=None)
    try:
        with caplog.at_level(logging.ERROR, logger="onlooker.mcp"):
            assert tools.call("search", {"query": f"why does {secret} fail"}).error
        assert "search" in caplog.text and secret not in caplog.text
    finally:
        tools.close()


def test_only_ascii_digits_in_range_name_a_memory() -> None:
    is_memory = search_module._is_memory_id
    assert is_memory(7) and is_memory("7") and is_memory(str(2**63 - 1))
    assert not is_memory("\u00b2") and not is_memory("\u0663")
    assert not is_memory("0") and not is_memory(str(2**63)) and not is_memory("9" * 5000)
