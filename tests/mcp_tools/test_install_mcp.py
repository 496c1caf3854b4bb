"""`onlooker install claude-code` registers `onlooker mcp` when it can start: in the user config
(~/.claude.json or $CLAUDE_CONFIG_DIR/.claude.json) for the project or for every project, or in a
plugin folder; never in the project's committed .mcp.json; undone exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import click
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from onlooker.hosts.claude_code import mcp_registration
from onlooker.hosts.claude_code.mcp_registration import installed_mcp

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
OTHER_SERVER = {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}
USER_CONFIG = '{\n  "numStartups": 12,\n  "theme": "dark",\n  "mcpServers": {"memory": {"command": "npx", "args": []}}\n}\n'


def onlooker(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([ONLOOKER, *args], capture_output=True, text=True, timeout=60, cwd=cwd)
    return done


def install(project: Path, *args: str) -> dict[str, Any]:
    done = onlooker("install", "claude-code", "--project", str(project), "--json", *args)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def uninstall(project: Path, *args: str) -> dict[str, Any]:
    done = onlooker("uninstall", "claude-code", "--project", str(project), "--json", *args)
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_project_scope_registers_for_the_project_in_the_user_config_and_undoes(
    tmp_path: Path, claude_config: Path
) -> None:
    claude_config.mkdir(parents=True)
    user_config = claude_config / ".claude.json"
    user_config.write_text(USER_CONFIG)
    project = tmp_path / "app"
    project.mkdir()

    report = install(project)
    assert report["mcp"]["config"] == str(user_config) and report["mcp"]["registered"] is True
    assert Path(report["mcp"]["backup"]).read_text() == USER_CONFIG
    data = json.loads(user_config.read_text())
    assert data["mcpServers"] == {"memory": {"command": "npx", "args": []}}  # left alone
    server = data["projects"][str(project)]["mcpServers"]["onlooker"]
    assert server["args"] == ["mcp"] and server["type"] == "stdio"
    assert server["command"] == str(claude_config.parent / "onlooker-home" / "bin" / "onlooker")
    assert not (project / ".mcp.json").exists()  # the committed file gets nothing

    assert install(project)["mcp"]["changed"] is False  # idempotent
    removed = uninstall(project)
    assert removed["mcp"]["changed"] is True
    assert user_config.read_text() == USER_CONFIG  # byte for byte


def test_a_server_an_earlier_install_put_into_mcp_json_moves_out(
    tmp_path: Path, claude_config: Path
) -> None:
    project = tmp_path / "app"
    project.mkdir()
    earlier = {
        "memory": OTHER_SERVER,
        "onlooker": {"command": "/old/python", "args": ["-I", "-m", "onlooker", "mcp"]},
    }
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": earlier}))
    report = install(project)
    assert any("moved onlooker's MCP server out of" in note for note in report["notes"])
    assert json.loads((project / ".mcp.json").read_text()) == {
        "mcpServers": {"memory": OTHER_SERVER}
    }
    assert installed_mcp(claude_config / ".claude.json", ("projects", str(project), "mcpServers"))


def test_a_file_install_created_is_removed_again(tmp_path: Path, claude_config: Path) -> None:
    project = tmp_path / "fresh"
    project.mkdir()
    install(project)
    assert (claude_config / ".claude.json").exists()
    uninstall(project)
    assert not (claude_config / ".claude.json").exists()


def test_a_server_that_cannot_start_is_not_registered(tmp_path: Path, claude_config: Path) -> None:
    """A Python where the mcp package cannot be imported: install says why and how to fix it."""
    python = python_without_mcp(tmp_path / "venv")
    project = tmp_path / "app"
    project.mkdir()
    done = subprocess.run(
        [python, "-m", "onlooker", "install", "claude-code", "--project", str(project), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["changed"] is True  # the hooks are installed all the same
    assert report["mcp"]["registered"] is False
    assert "no module named mcp" in report["mcp"]["reason"]
    assert "pip install 'onlooker[mcp]'" in report["mcp"]["fix"]
    assert not (claude_config / ".claude.json").exists()
    text = subprocess.run(
        [python, "-m", "onlooker", "install", "claude-code", "--project", str(project)],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert "note: the MCP server is not registered:" in text


def python_without_mcp(folder: Path) -> str:
    """A virtualenv that sees onlooker and its dependencies, but in which `mcp` is not found."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    site = next(folder.glob("lib/python3*/site-packages"))
    source = Path(mcp_registration.__file__).parents[3]  # the folder holding `onlooker`
    packages = Path(click.__file__).parents[1]
    hide = "import sys; sys.modules['mcp'] = None"  # as if the package were not installed
    (site / "onlooker-test.pth").write_text(f"{source}\n{packages}\n{hide}\n")
    return str(folder / "bin" / "python")


def test_user_and_local_scope_use_the_user_config_under_claude_config_dir(
    tmp_path: Path, claude_config: Path
) -> None:
    claude_config.mkdir(parents=True)
    user_config = claude_config / ".claude.json"
    user_config.write_text(USER_CONFIG)
    project = tmp_path / "svc"
    project.mkdir()

    install(project, "--scope", "user")
    data = json.loads(user_config.read_text())
    assert data["numStartups"] == 12 and data["theme"] == "dark"
    assert set(data["mcpServers"]) == {"memory", "onlooker"}
    assert (claude_config / "settings.json").exists()  # the hooks went beside it

    install(project, "--scope", "local")
    data = json.loads(user_config.read_text())
    assert "onlooker" in data["projects"][str(project)]["mcpServers"]

    uninstall(project, "--scope", "local")
    data = json.loads(user_config.read_text())
    assert "projects" not in data  # the containers install created are gone
    uninstall(project, "--scope", "user")
    assert user_config.read_text() == USER_CONFIG  # nothing else changed: the original bytes


def test_uninstall_keeps_what_changed_in_the_user_config_meanwhile(
    tmp_path: Path, claude_config: Path
) -> None:
    claude_config.mkdir(parents=True)
    user_config = claude_config / ".claude.json"
    user_config.write_text(USER_CONFIG)
    install(tmp_path, "--scope", "user")
    data = json.loads(user_config.read_text())
    data["numStartups"] = 13  # Claude Code rewrote the file meanwhile
    user_config.write_text(json.dumps(data, indent=2))
    uninstall(tmp_path, "--scope", "user")
    assert json.loads(user_config.read_text()) == {**json.loads(USER_CONFIG), "numStartups": 13}


def test_refuses_to_replace_someone_elses_onlooker_server(
    tmp_path: Path, claude_config: Path
) -> None:
    claude_config.mkdir(parents=True)
    taken = {"mcpServers": {"onlooker": {"command": "node", "args": ["server.js"]}}}
    (claude_config / ".claude.json").write_text(json.dumps(taken))
    done = onlooker("install", "claude-code", "--project", str(tmp_path), "--scope", "user")
    assert done.returncode != 0
    assert "mcpServers.onlooker is already taken" in done.stderr
    assert str(claude_config / ".claude.json") in done.stderr
    assert json.loads((claude_config / ".claude.json").read_text()) == taken


def test_invalid_json_is_reported_with_the_file(tmp_path: Path, claude_config: Path) -> None:
    claude_config.mkdir(parents=True)
    (claude_config / ".claude.json").write_text("{not json")
    done = onlooker("install", "claude-code", "--project", str(tmp_path))
    assert done.returncode != 0 and str(claude_config / ".claude.json") in done.stderr
    assert (claude_config / ".claude.json").read_text() == "{not json"


def test_no_mcp_leaves_server_config_alone(tmp_path: Path, claude_config: Path) -> None:
    project = tmp_path / "hooks-only"
    project.mkdir()
    report = install(project, "--no-mcp")
    assert "mcp" not in report
    assert not (claude_config / ".claude.json").exists()


def test_plugin_folder_gets_mcp_json(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    report = install(tmp_path, "--plugin", str(plugin))
    assert str(plugin / ".mcp.json") in report["files"]
    assert installed_mcp(plugin / ".mcp.json", ("mcpServers",))


def test_the_registered_command_starts_a_working_server(
    tmp_path: Path, onlooker_home: Path
) -> None:
    project = tmp_path / "live"
    project.mkdir()
    install(project)
    user_config = json.loads((onlooker_home.parent / "claude-config" / ".claude.json").read_text())
    entry = user_config["projects"][str(project)]["mcpServers"]["onlooker"]

    async def tools() -> list[str]:
        params = StdioServerParameters(
            command=entry["command"],
            args=entry["args"],
            env={"ONLOOKER_HOME": str(onlooker_home)},
            cwd=str(project),
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            answer = await session.call_tool("observations", {"operation": "list"})
            assert answer.structured_content is not None
            assert answer.structured_content["status"] == "ok"
            return sorted(tool.name for tool in listed.tools)

    listed = anyio.run(tools)
    assert [n for n in listed if not n.startswith("observer_")] == [
        "get_observations",
        "observations",
        "read",
        "search",
    ]
    assert len(listed) == 13 and "observer_status" in listed
