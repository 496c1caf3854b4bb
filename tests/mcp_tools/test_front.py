"""The MCP server's front (mcp/front.py): it answers the first requests as the SDK would, before
anything but the standard library is imported, and hands everything else to the SDK.

Each test runs real `onlooker mcp` processes and speaks JSON-RPC lines to them over stdio: as
`python -m onlooker mcp`, and as the launcher starts it, `python -I -S .../mcp/entry.py mcp`
(no `site` until the hand-over)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from onlooker.mcp.front import LISTING_FILE, MODERN_META
from onlooker.mcp.listing import sdk_listing

FRONT = [sys.executable, "-m", "onlooker", "mcp"]
ENTRY = str(Path(LISTING_FILE).with_name("entry.py"))
LAUNCHED = [sys.executable, "-I", "-S", ENTRY, "mcp"]
"""What the launcher runs (hosts/launcher.py): no `site`, no `runpy`."""
FRONTS = {"python -m onlooker mcp": FRONT, "python -I -S mcp/entry.py mcp": LAUNCHED}
SDK_ALONE = [
    sys.executable,
    "-c",
    "import onlooker.mcp.front as front; front.load_listing = lambda *a: None; front.serve(None)",
]
"""The server as it runs when it cannot read its listing: the SDK answers from the first line."""

MODERN = {
    "_meta": {
        MODERN_META + "protocolVersion": "2026-07-28",
        MODERN_META + "clientInfo": {"name": "claude-code", "version": "2.1.328"},
        MODERN_META + "clientCapabilities": {"roots": {"listChanged": True}},
    }
}
HALF_MODERN = {"_meta": {MODERN_META + "protocolVersion": "2026-07-28"}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_CALL = {"name": "observations", "arguments": {"operation": "list"}}


def request(request_id: int | str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def initialize(request_id: int | str, version: str) -> dict[str, Any]:
    client = {"name": "test", "version": "1"}
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": client}
    return request(request_id, "initialize", params)


def exchange(
    command: list[str], messages: list[dict[str, Any]], root: Path, *, importtime: bool = False
) -> tuple[list[Any], str]:
    """The answers of a fresh server to `messages` (each request's answer read before the next
    is sent), and its stderr."""
    home = root / "home"
    root.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "ONLOOKER_HOME": str(home), "CLAUDE_CONFIG_DIR": str(root / "claude")}
    if importtime:
        command = [command[0], "-X", "importtime", *command[1:]]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        cwd=root,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    answers: list[Any] = []
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        for message in messages:
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
            if "id" in message:
                assert selector.select(timeout=60), f"no answer to {message}"
                answers.append(json.loads(process.stdout.readline()))
    _, stderr = process.communicate(timeout=60)
    return answers, stderr.decode()


SEQUENCES = {
    "legacy": [
        initialize(0, "2025-06-18"),
        INITIALIZED,
        request(1, "tools/list", {}),
        request(2, "tools/call", LIST_CALL),
        request(3, "tools/list", {}),
        request(4, "ping", {}),
    ],
    "legacy, a version the SDK does not speak": [
        initialize("a", "2099-01-01"),
        request("b", "tools/list", {}),
        INITIALIZED,
        request("c", "tools/call", LIST_CALL),
    ],
    "legacy, an id used again after its answer": [
        initialize(7, "2025-11-25"),
        INITIALIZED,
        request(7, "tools/call", LIST_CALL),
    ],
    "2026-07-28, as Claude Code 2.1.328 speaks it": [
        request("server-discover-probe-1", "server/discover", MODERN),
        request(1, "server/discover", MODERN),
        request(2, "tools/list", MODERN),
        request(3, "tools/call", {**LIST_CALL, **MODERN}),
    ],
    "2026-07-28, then the handshake (Claude Code after a slow probe)": [
        request("probe", "server/discover", MODERN),
        initialize(0, "2025-11-25"),
        request(1, "tools/list", MODERN),
    ],
    "a half envelope": [request(1, "tools/list", HALF_MODERN), request(2, "tools/list", MODERN)],
    "a tool call first": [request(1, "tools/call", {**LIST_CALL, **MODERN})],
    "the handshake, then an envelope": [
        initialize(0, "2025-06-18"),
        INITIALIZED,
        request(1, "tools/list", MODERN),
    ],
}


@pytest.mark.parametrize("front", list(FRONTS))
@pytest.mark.parametrize("name", list(SEQUENCES))
def test_the_front_answers_as_the_sdk_alone_does(name: str, front: str, tmp_path: Path) -> None:
    messages = SEQUENCES[name]
    with_front, _ = exchange(FRONTS[front], messages, tmp_path / "front")
    sdk_alone, _ = exchange(SDK_ALONE, messages, tmp_path / "sdk")
    assert len(with_front) == len([m for m in messages if "id" in m])
    assert with_front == sdk_alone


def test_the_listing_is_what_the_installed_sdk_answers() -> None:
    written = json.loads(Path(LISTING_FILE).read_text(encoding="utf-8"))
    assert written == sdk_listing(), (
        "src/onlooker/mcp/listing.json is not current: run `python -m onlooker.mcp.listing`"
    )


def imported_modules(stderr: str) -> list[str]:
    """The modules `python -X importtime` says were imported, in order."""
    return [
        line.rpartition("|")[2].strip() for line in stderr.splitlines() if "import time:" in line
    ][1:]  # the first line is the header


FRONT_MODULES = {
    "onlooker",
    "onlooker.__main__",
    "onlooker.cli",
    "onlooker.cli._commands",
    "onlooker.cli._mcp_start",
    "onlooker.mcp",
    "onlooker.mcp.front",
    "onlooker.mcp.quick_json",
    "onlooker.mcp.sdk_found",
    "onlooker.mcp.wire",
}


def test_the_first_answers_come_before_anything_heavy_is_imported(tmp_path: Path) -> None:
    bare = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "pass"], capture_output=True, text=True
    )
    at_start = set(imported_modules(bare.stderr))
    for name in ("legacy", "2026-07-28, as Claude Code 2.1.328 speaks it"):
        listing = [m for m in SEQUENCES[name] if m.get("method") != "tools/call"][:3]
        answers, stderr = exchange(FRONT, listing, tmp_path / name, importtime=True)
        assert all("result" in answer for answer in answers), answers
        added = [m for m in imported_modules(stderr) if m not in at_start]
        third_party = [
            m for m in added if m.partition(".")[0] not in sys.stdlib_module_names | {"onlooker"}
        ]
        assert third_party == []
        assert [m for m in added if m.startswith("onlooker") and m not in FRONT_MODULES] == []
        assert "typing" not in added and "sqlite3" not in added


def test_the_launched_front_answers_on_little_more_than_a_bare_start(tmp_path: Path) -> None:
    """Without `site`, `runpy`, `importlib.util`, `os` and `json` (with `re` and `enum`): what
    the launcher starts imports, before the tools are listed, only what a bare `python -I -S`
    has, onlooker's front and the C half of `json`."""
    bare = subprocess.run(
        [sys.executable, "-I", "-S", "-X", "importtime", "-c", "pass"],
        capture_output=True, text=True,
    )  # fmt: skip
    at_start = set(imported_modules(bare.stderr))
    for name in ("legacy", "2026-07-28, as Claude Code 2.1.328 speaks it"):
        listing = [m for m in SEQUENCES[name] if m.get("method") != "tools/call"][:3]
        answers, stderr = exchange(LAUNCHED, listing, tmp_path / name, importtime=True)
        assert all("result" in answer for answer in answers), answers
        added = [m for m in imported_modules(stderr) if m not in at_start]
        assert set(added) <= FRONT_MODULES | {"__future__", "_json"}, added


@pytest.mark.parametrize("front", list(FRONTS))
def test_a_tool_call_loads_the_sdk(front: str, tmp_path: Path) -> None:
    """The checks above see imports: the first tool call brings in the SDK and the store (the
    launched front adds `site` first)."""
    answers, stderr = exchange(FRONTS[front], SEQUENCES["legacy"][:4], tmp_path, importtime=True)
    assert answers[-1]["result"]["isError"] is False
    added = set(imported_modules(stderr))
    assert {"mcp_types", "pydantic", "onlooker.store", "onlooker.mcp.server"} <= added


def test_the_options_claude_code_may_pass_are_read_without_click() -> None:
    from onlooker.cli._mcp_start import fast_options

    assert fast_options([]) == ("", False)
    assert fast_options(["--text-only", "--session", "s-1"]) == ("s-1", True)
    assert fast_options(["--session=s-2"]) == ("s-2", False)
    for handed_to_click in (["--project", "demo"], ["--session"], ["--help"], ["--list-tools"]):
        assert fast_options(handed_to_click) is None


@pytest.mark.parametrize("front", list(FRONTS))
def test_text_only_reaches_the_tools_through_the_front(front: str, tmp_path: Path) -> None:
    search = {"name": "search", "arguments": {"query": "retry", "mode": "vector"}}
    messages = [initialize(0, "2025-11-25"), INITIALIZED, request(1, "tools/call", search)]
    command = [*FRONTS[front], "--text-only", "--session", "s-1"]
    answers, stderr = exchange(command, messages, tmp_path, importtime=True)
    refused = answers[-1]["result"]
    assert refused["isError"] is True
    assert "embeddings extra" in refused["structuredContent"]["error"]
    assert "onlooker.cli.mcp" not in imported_modules(stderr)  # click's command did not run


def test_a_listing_of_another_mcp_version_is_not_used(tmp_path: Path) -> None:
    from onlooker.mcp.front import load_listing

    assert load_listing() is not None  # written with the mcp installed here
    listing = json.loads(Path(LISTING_FILE).read_text(encoding="utf-8"))
    other = tmp_path / "listing.json"
    other.write_text(json.dumps({**listing, "mcp_version": "2.999.0"}), encoding="utf-8")
    assert load_listing(str(other)) is None  # the SDK answers from the first line


def test_the_launched_front_hands_other_options_to_the_command_line(tmp_path: Path) -> None:
    """`mcp/entry.py mcp --list-tools` (click's option): `site` is added, click reads it."""
    env = {**os.environ, "ONLOOKER_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [*LAUNCHED, "--list-tools", "--json"], capture_output=True, text=True, env=env,
        cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    listed = {tool["name"] for tool in json.loads(done.stdout)}
    assert {"search", "observations", "read", "get_observations"} <= listed


@pytest.mark.parametrize("front", list(FRONTS))
@pytest.mark.parametrize("before", ["front", "sdk"])
def test_the_sigint_of_a_client_leaving_ends_the_server_quietly(
    before: str, front: str, tmp_path: Path
) -> None:
    """Claude Code sends SIGINT to its MCP servers when it exits: no traceback on stderr, whether
    the front or the SDK server was serving."""
    import signal

    env = {**os.environ, "ONLOOKER_HOME": str(tmp_path / "home")}
    process = subprocess.Popen(
        FRONTS[front], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env, cwd=tmp_path,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    messages = [initialize(0, "2025-06-18"), INITIALIZED, request(1, "tools/list", {})]
    if before == "sdk":
        messages.append(request(2, "tools/call", LIST_CALL))
    for message in messages:
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()
        if "id" in message:
            assert json.loads(process.stdout.readline())["id"] == message["id"]
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert "Traceback" not in stderr.decode() and "KeyboardInterrupt" not in stderr.decode()
