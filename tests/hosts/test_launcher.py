"""The stable command hooks name (`<data home>/bin/onlooker`) and the plugin's finder: each runs the
installed onlooker, hands over to an `onlooker` on PATH when what it names is gone, and otherwise
says once how to install it, never blocking (exit 0) — real shell, real hook client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from onlooker.hosts.launcher import FINDER_TEXT, entry_file, launcher_path, write_launcher

ONLOOKER = Path(sys.executable).with_name("onlooker")
BARE_PATH = "/usr/bin:/bin"
"""A PATH with no `onlooker` on it."""


def run(command: list[str], stdin: str = "{}", **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env})  # fmt: skip


def session_start(cwd: Path) -> str:
    return json.dumps({"hook_event_name": "SessionStart", "session_id": "l-1", "cwd": str(cwd),
                       "source": "startup", "transcript_path": str(cwd / "t.jsonl")})  # fmt: skip


def recorded(home: Path) -> bool:
    """Whether the hook's session got recorded, waiting for it: a session's start that found no
    service running returns before the service it started records it (specs/hook-service.md)."""
    deadline = time.monotonic() + 30
    while not list(home.rglob("*.jsonl")):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_the_launcher_runs_the_hook_and_the_cli(tmp_path: Path, onlooker_home: Path) -> None:
    launcher = write_launcher(onlooker_home)
    assert launcher == launcher_path(onlooker_home) and os.access(launcher, os.X_OK)
    done = run([str(launcher), "hook"], session_start(tmp_path), ONLOOKER_HOOKD_IDLE="2")
    assert (done.returncode, done.stderr) == (0, "")
    assert recorded(onlooker_home), "the hook recorded nothing"
    version = run([str(launcher), "--version"], PATH=BARE_PATH)
    assert version.returncode == 0 and version.stdout.startswith("onlooker, version ")


def test_when_its_python_is_gone_the_hook_says_so_once_and_never_blocks(
    tmp_path: Path, onlooker_home: Path
) -> None:
    launcher = write_launcher(onlooker_home)
    launcher.write_text(launcher.read_text().replace(sys.executable, str(tmp_path / "gone")))
    first = run([str(launcher), "hook"], session_start(tmp_path), PATH=BARE_PATH)
    assert first.returncode == 0
    message = json.loads(first.stdout)["systemMessage"]
    assert f"{tmp_path / 'gone'} is gone" in message and "pipx install onlooker" in message
    again = run([str(launcher), "hook"], session_start(tmp_path), PATH=BARE_PATH)
    assert (again.returncode, again.stdout) == (0, "")  # once
    cli = run([str(launcher), "status"], PATH=BARE_PATH)
    assert cli.returncode == 1 and "pipx install onlooker" in cli.stderr


def test_when_its_python_is_gone_an_onlooker_on_path_takes_over(
    tmp_path: Path, onlooker_home: Path
) -> None:
    launcher = write_launcher(onlooker_home)
    launcher.write_text(launcher.read_text().replace(sys.executable, str(tmp_path / "gone")))
    path = f"{ONLOOKER.parent}{os.pathsep}{BARE_PATH}"
    done = run([str(launcher), "--version"], PATH=path)
    assert done.returncode == 0 and done.stdout.startswith("onlooker, version ")
    hook = run([str(launcher), "hook"], session_start(tmp_path), PATH=path, ONLOOKER_HOOKD_IDLE="2")
    assert (hook.returncode, hook.stdout) == (0, "")
    assert recorded(onlooker_home)


def test_the_plugin_finder_names_no_machine_and_finds_onlooker(
    tmp_path: Path, onlooker_home: Path
) -> None:
    finder = tmp_path / "onlooker"
    finder.write_text(FINDER_TEXT)
    finder.chmod(0o755)
    assert sys.executable not in FINDER_TEXT and str(onlooker_home) not in FINDER_TEXT
    data = tmp_path / "plugin-data"
    nothing = run([str(finder), "hook"], PATH=BARE_PATH, CLAUDE_PLUGIN_DATA=str(data))
    assert nothing.returncode == 0
    assert "pipx install onlooker" in json.loads(nothing.stdout)["systemMessage"]
    assert run([str(finder), "hook"], PATH=BARE_PATH, CLAUDE_PLUGIN_DATA=str(data)).stdout == ""
    on_path = run([str(finder), "--version"], PATH=f"{ONLOOKER.parent}{os.pathsep}{BARE_PATH}")
    assert on_path.stdout.startswith("onlooker, version ")
    write_launcher(onlooker_home)  # the data home's launcher comes first
    found = run([str(finder), "hook"], session_start(tmp_path), PATH=BARE_PATH,
                ONLOOKER_HOOKD_IDLE="2")  # fmt: skip
    assert (found.returncode, found.stdout) == (0, "")
    assert recorded(onlooker_home)


INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"},
}}  # fmt: skip


def serve_once(launcher: Path, cwd: Path) -> tuple[Any, list[str]]:
    """`<launcher> mcp`: its answer to `initialize`, and the command line it runs as (it execs)."""
    process = subprocess.Popen([str(launcher), "mcp"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    answer = json.loads(process.stdout.readline())
    command = Path(f"/proc/{process.pid}/cmdline").read_bytes().decode().split("\0")[:-1]
    process.stdin.close()  # the client leaves: the server ends
    assert process.wait(timeout=60) == 0
    process.stdout.close()
    return answer, command


def test_the_launcher_starts_the_mcp_front_without_site_and_falls_back(
    tmp_path: Path, onlooker_home: Path
) -> None:
    """`mcp` runs `python -I -S …/onlooker/mcp/entry.py mcp` (specs/mcp.md, "Start-up"); a
    launcher whose client folder has no such file beside it runs `python -I -m onlooker mcp`."""
    launcher = write_launcher(onlooker_home)
    answer, command = serve_once(launcher, tmp_path)
    assert answer["result"]["serverInfo"]["name"] == "onlooker"
    assert command[1:3] == ["-I", "-S"] and command[3].endswith("/onlooker/mcp/entry.py")
    assert command[4:] == ["mcp"]
    elsewhere = tmp_path / "elsewhere" / "daemon" / "entry.py"  # no mcp/entry.py beside it
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text("")
    text = launcher.read_text().replace(f"entry={entry_file()}", f"entry={elsewhere}")
    launcher.write_text(text)
    answer, command = serve_once(launcher, tmp_path)
    assert answer["result"]["serverInfo"]["name"] == "onlooker"
    assert command[1:] == ["-I", "-m", "onlooker", "mcp"]
