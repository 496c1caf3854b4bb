"""Bad input to `onlooker mcp` always gets an answer: a refusal naming the field from the tool,
or a JSON-RPC error with the request's id when the SDK cannot even read the request; never
silence, and the server goes on answering."""

from __future__ import annotations

import json
import os
import select
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_harness import ONLOOKER, McpServer

from onlooker.store import ObservationsTool, Store
from onlooker.store.tool import MAX_BATCH, MAX_METADATA_DEPTH


def deep(depth: int) -> str:
    """An object `depth` levels deep, as JSON text (json.dumps itself stops near 1,000)."""
    return '{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)


def create_batch(request_id: int, metadata: str, content: str = "y") -> str:
    return (
        f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", "params": {{"name": '
        f'"observations", "arguments": {{"operation": "create_batch", "observations": '
        f'[{{"observer": "fuzz", "content": "{content}", "metadata": {metadata}}}]}}}}}}'
    )


class RawClient:
    """`onlooker mcp` spoken to line by line, as JSON-RPC, with no client library in between."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, timeout: float = 30) -> dict[str, Any]:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        assert ready, "no answer: the server stayed silent"
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawClient]:
    env = {**os.environ, "ONLOOKER_HOME": str(tmp_path / "home")}
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "claude")
    with (tmp_path / "stderr.log").open("w") as errors, subprocess.Popen(
        [str(ONLOOKER), "mcp", "--text-only"],
        cwd=tmp_path,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, env=env,
    ) as process:  # fmt: skip
        client = RawClient(process)
        client.send(json.dumps({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}},
        }))  # fmt: skip
        assert client.answer()["id"] == 1
        client.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        yield client
        process.terminate()


@pytest.mark.parametrize("depth", [300, 3000])
def test_metadata_nested_past_the_sdks_parser_gets_an_error_answer(
    raw: RawClient, depth: int
) -> None:
    raw.send(create_batch(2, deep(depth)))
    answer = raw.answer()
    assert answer["id"] == 2 and answer["error"]["code"] == -32600
    assert "could not be read" in answer["error"]["message"]
    raw.send(create_batch(3, deep(MAX_METADATA_DEPTH + 4)))  # the server still answers
    refused = raw.answer()["result"]
    assert refused["isError"] and refused["structuredContent"]["field"] == (
        "observations[0].metadata"
    )
    raw.send(create_batch(4, '{"ok": true}'))
    assert raw.answer()["result"]["structuredContent"]["status"] == "created"


def test_a_ten_million_character_finding_is_refused_naming_the_field(
    server: McpServer,
) -> None:
    refusal = server.refusal(
        "observations",
        {"operation": "create_batch", "observations": [{"observer": "x", "content": "y" * 10**7}]},
    )
    assert refusal["field"] == "observations[0].content"
    assert "10,000,000 characters; at most 20,000" in refusal["error"]


def test_arguments_nested_too_deep_are_refused_before_any_tool_runs(server: McpServer) -> None:
    nested: Any = "x"
    for _ in range(40):
        nested = [nested]
    refusal = server.refusal("search", {"query": "x", "projects": nested})
    assert refusal["field"] == "projects" and "deeper than 32 levels" in refusal["error"]


def test_the_observations_tool_refuses_what_is_over_its_limits(tmp_path: Path) -> None:
    tool = ObservationsTool(Store(tmp_path), project="demo")

    def refused(request: dict[str, Any]) -> tuple[str, str]:
        answer = tool(request)
        assert answer["status"] == "error", answer
        return answer["field"], answer["error"]

    nested: dict[str, Any] = {}
    for _ in range(300):
        nested = {"a": nested}
    item = {"observer": "x", "content": "y"}
    assert (
        refused({"operation": "create_batch", "observations": [{**item, "metadata": nested}]})[0]
        == "observations[0].metadata"
    )
    big = {"blob": "z" * 70_000}
    assert (
        "at most 65,536"
        in refused({"operation": "create_batch", "observations": [{**item, "metadata": big}]})[1]
    )
    assert refused({"operation": "create_batch", "observations": [item] * (MAX_BATCH + 1)})[0] == (
        "observations"
    )
    assert refused(
        {"operation": "create_batch", "observations": [{**item, "evidence": "e" * 20_001}]}
    )[0] == ("observations[0].evidence")
    created = tool({"operation": "create_batch", "observations": [item]})
    finding = created["observations"][0]["id"]
    assert refused(
        {"operation": "resolve", "observation_id": finding, "resolution_note": "n" * 20_001}
    ) == ("resolution_note", "resolution_note: is 20,001 characters; at most 20,000 are taken")
    assert tool({"operation": "list"})["count"] == 1  # nothing refused was stored
