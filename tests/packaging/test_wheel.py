"""The wheel as users get it: built from this checkout, installed with its dependencies into a clean
virtualenv outside the checkout (no extras), and run there (specs/install.md).

`pip install onlooker` must give the command line, config files, the MCP server (checked with the
real `mcp` client), schema checks and every data file the package reads at run time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path

    @property
    def onlooker(self) -> Path:
        return self.venv / "bin" / "onlooker"

    def run(
        self, *args: str, cwd: Path, home: Path, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.onlooker), *args],
            cwd=cwd,
            env=clean_env(home, **extra),
            capture_output=True,
            text=True,
            timeout=120,
        )


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user: no PYTHONPATH into the checkout, a data home of its own."""
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env |= {"HOME": str(home), "ONLOOKER_HOME": str(home / "onlooker")}
    env |= {"CLAUDE_CONFIG_DIR": str(home / ".claude")}
    return env | extra


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(dist), str(REPO)],
        check=True, capture_output=True, timeout=300, cwd=root,
    )  # fmt: skip
    (wheel,) = dist.glob("onlooker-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
         "--disable-pip-version-check", str(wheel)],
        check=True, capture_output=True, timeout=600, cwd=root,
    )  # fmt: skip
    yield Installed(wheel, venv)


def test_the_wheel_holds_every_data_file_the_package_reads(installed: Installed) -> None:
    source = REPO / "src"
    tracked = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "src/onlooker"], capture_output=True, text=True
    ).stdout.split()
    data = {str(Path(p).relative_to("src")) for p in tracked if not p.endswith(".py")}
    data.discard("onlooker/.gitignore")
    assert "onlooker/hosts/opencode/plugin/onlooker.ts" in data
    assert any(p.startswith("onlooker/report/templates/") for p in data)
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert data <= names, sorted(data - names)
    assert (source / "onlooker").is_dir()
    metadata = (
        zipfile.ZipFile(installed.wheel).read(f"onlooker-{VERSION}.dist-info/METADATA").decode()
    )
    for needed in ("click", "rich", "PyYAML", "mcp", "jsonschema", "jinja2"):
        assert any(
            line.lower().startswith(f"requires-dist: {needed.lower()}")
            for line in metadata.splitlines()
        ), needed


def test_version(installed: Installed, tmp_path: Path) -> None:
    done = installed.run("--version", cwd=tmp_path, home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"onlooker, version {VERSION}"


def test_it_runs_from_its_own_install_not_the_checkout(
    installed: Installed, tmp_path: Path
) -> None:
    python = installed.venv / "bin" / "python"
    done = subprocess.run(
        [str(python), "-I", "-c", "import onlooker, jsonschema, yaml; print(onlooker.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, env=clean_env(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).is_relative_to(installed.venv)


def test_config_show_and_validate(installed: Installed, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "onlooker.yaml").write_text(
        "trajectory:\n  observers:\n    stall: {repeat_warn: 3}\n"
    )
    shown = installed.run("config", "show", cwd=project, home=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "repeat_warn: 3" in shown.stdout
    (project / "onlooker.yaml").write_text("trajectory:\n  observerz: {}\n")
    bad = installed.run("config", "validate", cwd=project, home=tmp_path)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "trajectory.observerz" in bad.stdout + bad.stderr


def test_doctor(installed: Installed, tmp_path: Path) -> None:
    done = installed.run("doctor", "--json", cwd=tmp_path, home=tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 0, report
    assert report["healthy"] is True


def test_the_hook_answers(installed: Installed, tmp_path: Path) -> None:
    event = {
        "hook_event_name": "SessionStart",
        "session_id": "wheel-1",
        "cwd": str(tmp_path),
        "source": "startup",
        "transcript_path": str(tmp_path / "t.jsonl"),
    }
    done = subprocess.run(
        [str(installed.onlooker), "hook"],
        input=json.dumps(event), capture_output=True, text=True, timeout=60, cwd=tmp_path,
        env=clean_env(tmp_path, ONLOOKER_HOOKD_IDLE="2"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    deadline = time.monotonic() + 30  # a session's start returns before a cold service records it
    while not list((tmp_path / "onlooker").rglob("*.jsonl")):
        assert time.monotonic() < deadline, "the hook recorded nothing"
        time.sleep(0.05)


def test_mcp_server_lists_its_tools(installed: Installed, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=str(installed.onlooker), args=["mcp"], env=clean_env(tmp_path), cwd=str(tmp_path)
    )

    async def tools() -> tuple[str, list[str]]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            listed = await session.list_tools()
            return init.server_info.name, [tool.name for tool in listed.tools]

    name, names = anyio.run(tools)
    assert "onlooker" in name
    assert {"observations", "search"} <= set(names)


STALL = "[Trajectory Assessment - Stall"  # with Error Cascade: one voice


def test_one_install_command_wires_the_real_claude_code(
    installed: Installed, tmp_path: Path
) -> None:
    """As a user with only pipx and Claude Code: the wheel's `onlooker` on PATH, `onlooker install
    --yes`, then a real `claude -p` session in any project gets onlooker's hooks and MCP tools."""
    from onlooker.daemon.hookd import running_pid
    from onlooker.daemon.worker import worker_pid
    from onlooker.testing import AnthropicEndpoint, ClaudeCode, ToolUse, find_claude

    home, data = tmp_path / "user", tmp_path / "user" / "onlooker"
    (home / ".claude").mkdir(parents=True)
    path = f"{installed.venv / 'bin'}{os.pathsep}/usr/bin:/bin"  # where pipx puts `onlooker`
    done = installed.run("install", "--yes", cwd=home, home=home, PATH=path)
    assert done.returncode == 0, done.stderr
    assert "claude-code" in done.stdout and str(home / ".claude" / "settings.json") in done.stdout
    settings = (home / ".claude" / "settings.json").read_text()
    assert str(installed.venv) not in settings  # the hooks name the launcher, not the venv
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    failing = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})
    env = {"PATH": path, "ONLOOKER_HOME": str(data), "ONLOOKER_HOOKD_IDLE": "30"}
    try:
        with AnthropicEndpoint([failing] * 4) as api:
            cli = ClaudeCode(api, home, executable=find_claude(REPO), env=env)
            run = cli.run("Read the plan and follow it.", cwd=project)
        assert run.ok, run.stderr[-2000:]
        served = set(re.findall(r"mcp__onlooker__\w+", api.turns[-1].text))  # deferred tools
        assert {"mcp__onlooker__observations", "mcp__onlooker__search"} <= served
        delivered = [c for turn in api.turns for c in turn.hook_context("PostToolUseFailure")]
        assert sum(STALL in c for c in delivered) >= 1  # the hooks ran the installed onlooker
    finally:
        for pid in (running_pid(data), worker_pid(data)):
            if pid:
                os.kill(pid, 15)


def test_the_plugin_marketplace_install_runs_the_wheels_onlooker(
    installed: Installed, tmp_path: Path
) -> None:
    """As a user with the wheel's `onlooker` on PATH who installs the plugin from the marketplace
    (no `onlooker install`): the plugin's hooks and MCP server run that onlooker."""
    from onlooker.daemon.hookd import running_pid
    from onlooker.daemon.worker import worker_pid
    from onlooker.testing import AnthropicEndpoint, ClaudeCode, ToolUse, find_claude

    home, data = tmp_path / "user", tmp_path / "user" / "onlooker"
    (home / ".claude").mkdir(parents=True)
    path = f"{installed.venv / 'bin'}{os.pathsep}/usr/bin:/bin"
    env = {"PATH": path, "ONLOOKER_HOME": str(data), "ONLOOKER_HOOKD_IDLE": "30"}
    claude = find_claude(REPO)
    for step in (["marketplace", "add", str(REPO)], ["install", "onlooker@onlooker"]):
        with AnthropicEndpoint([]) as api:
            setup = ClaudeCode(api, home, executable=claude, env=env).environment()
        done = subprocess.run([str(claude), "plugin", *step], env=setup, cwd=home,
                              capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    project = tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    failing = ToolUse("Bash", {"command": "cat notes/plan.txt", "description": "Read the plan"})
    try:
        with AnthropicEndpoint([failing] * 4) as api:
            run = ClaudeCode(api, home, executable=claude, env=env).run(
                "Read the plan and follow it.", cwd=project
            )
        assert run.ok, run.stderr[-2000:]
        served = set(re.findall(r"mcp__plugin_onlooker_onlooker__\w+", api.turns[-1].text))
        assert {"observations", "search"} <= {name.rsplit("__", 1)[1] for name in served}
        delivered = [c for turn in api.turns for c in turn.hook_context("PostToolUseFailure")]
        assert sum(STALL in c for c in delivered) >= 1
        journals = list((data / "journals").rglob("*.jsonl"))
        assert journals, "the hooks recorded the session in the data home"
        ran = subprocess.run(["ps", "-o", "args=", "-p", str(running_pid(data))],
                             capture_output=True, text=True)  # fmt: skip
        assert str(installed.venv) in ran.stdout  # the service is the wheel's, not the checkout's
    finally:
        for pid in (running_pid(data), worker_pid(data)):
            if pid:
                os.kill(pid, 15)
