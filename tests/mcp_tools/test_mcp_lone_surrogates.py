"""A lone surrogate in a tool call's arguments (`"\\ud800"`: valid JSON, as a JavaScript client
writes it, but no UTF-8 text) is stored as U+FFFD (specs/mcp.md). The SDK's parser refuses such
a line; the server reads it again with U+FFFD in place, so the call goes through, and the real
`mcp` client then reads back what was stored, from the journal-backed index and after a rebuild.

The real `mcp` client cannot send a lone surrogate itself (pydantic will not encode one), so the
calls carrying them are written as JSON-RPC lines, as a JavaScript client would send them.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path
from typing import Any

from mcp_harness import ONLOOKER, project_folder, running_server

from onlooker.runtime import reindex, remove_index
from onlooker.store import Store

FFFD = "\ufffd"


class RawClient:
    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.ids = 0

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send one request (json.dumps writes a lone surrogate as its escape); its answer."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.ids += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        assert ready, "no answer: the server stayed silent"
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        assert answer["id"] == self.ids, answer
        return answer

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in answer, answer  # not a JSON-RPC error: the call went through
        assert not answer["result"].get("isError"), answer
        found: dict[str, Any] = answer["result"]["structuredContent"]
        return found


def test_lone_surrogates_in_tool_arguments_are_stored_as_u_fffd(tmp_path: Path) -> None:
    home, claude = tmp_path / "onlooker-home", tmp_path / "claude-config"
    env = {**os.environ, "ONLOOKER_HOME": str(home), "CLAUDE_CONFIG_DIR": str(claude)}
    project_folder(tmp_path)  # the raw client's server and the real client's: one project
    with (tmp_path / "raw-stderr.log").open("w") as errors, subprocess.Popen(
        [str(ONLOOKER), "mcp", "--text-only"],
        cwd=tmp_path,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, env=env,
    ) as process:  # fmt: skip
        raw = RawClient(process)
        raw.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "raw", "version": "1"}})  # fmt: skip
        assert process.stdin is not None
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        process.stdin.flush()
        item = {"observer": "fuzz\udfff", "content": "SQL injection \ud800 in the report query",
                "severity": "high", "evidence": "a\udc00b", "metadata": {"k\ud800": ["v\udbff"]}}  # fmt: skip
        created = raw.call("observations", {"operation": "create_batch", "observations": [item]})
        stored = created["observations"][0]
        assert (stored["observer"], stored["content"], stored["evidence"]) == (
            f"fuzz{FFFD}",
            f"SQL injection {FFFD} in the report query",
            f"a{FFFD}b",
        )
        assert stored["metadata"] == {f"k{FFFD}": [f"v{FFFD}"]}
        found = raw.call("search", {"query": "report query \ud800"})
        assert any(stored["id"] in json.dumps(hit) for hit in found["results"]), found
        process.terminate()

    with running_server(tmp_path) as server:  # the real client
        listed = server.data("observations", {"operation": "list"})
        assert [o["content"] for o in listed["observations"]] == [stored["content"]]
        got = server.data("get_observations", {"ids": [stored["id"]]})
        assert f"injection {FFFD} in" in json.dumps(got, ensure_ascii=False)
    remove_index(home)  # the journal holds it as stored: a rebuild gives it back the same
    with Store(home) as store:
        reindex(store, ())
        again = store.get([stored["id"]])
    assert again[0].finding.content == stored["content"]
