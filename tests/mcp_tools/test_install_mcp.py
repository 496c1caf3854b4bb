"""`onlooker install claude-code` registers `onlooker mcp`: project .mcp.json, the user config
(~/.claude.json or $CLAUDE_CONFIG_DIR/.claude.json), local scope, a plugin folder; undone exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

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


def test_project_scope_writes_mcp_json_keeps_other_servers_and_undoes(tmp_path: Path) -> None:
    project = tmp_path / "app"
    project.mkdir()
    original = json.dumps({"mcpServers": {"memory": OTHER_SERVER}}, indent=4) + "\n"
    (project / ".mcp.json").write_text(original)

    report = install(project)
    assert report["mcp"]["config"] == str(project / ".mcp.json")
    assert report["mcp"]["changed"] is True
    assert Path(report["mcp"]["backup"]).read_text() == original
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert servers["memory"] == OTHER_SERVER
    assert servers["onlooker"]["args"] == ["-I", "-m", "onlooker", "mcp"]
    assert servers["onlooker"]["type"] == "stdio"
    assert installed_mcp(project / ".mcp.json", ("mcpServers",))

    assert install(project)["mcp"]["changed"] is False  # idempotent
    removed = uninstall(project)
    assert removed["mcp"]["changed"] is True
    assert (project / ".mcp.json").read_text() == original  # byte for byte


def test_a_file_install_created_is_removed_again(tmp_path: Path) -> None:
    project = tmp_path / "fresh"
    project.mkdir()
    install(project)
    assert (project / ".mcp.json").exists()
    uninstall(project)
    assert not (project / ".mcp.json").exists()
    assert not installed_mcp(project / ".mcp.json", ("mcpServers",))


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


def test_refuses_to_replace_someone_elses_onlooker_server(tmp_path: Path) -> None:
    project = tmp_path / "taken"
    project.mkdir()
    taken = {"mcpServers": {"onlooker": {"command": "node", "args": ["server.js"]}}}
    (project / ".mcp.json").write_text(json.dumps(taken))
    done = onlooker("install", "claude-code", "--project", str(project))
    assert done.returncode != 0
    assert "mcpServers.onlooker is already taken" in done.stderr
    assert str(project / ".mcp.json") in done.stderr
    assert json.loads((project / ".mcp.json").read_text()) == taken


def test_invalid_json_is_reported_with_the_file(tmp_path: Path) -> None:
    project = tmp_path / "broken"
    project.mkdir()
    (project / ".mcp.json").write_text("{not json")
    done = onlooker("install", "claude-code", "--project", str(project))
    assert done.returncode != 0 and str(project / ".mcp.json") in done.stderr
    assert (project / ".mcp.json").read_text() == "{not json"


def test_no_mcp_leaves_server_config_alone(tmp_path: Path) -> None:
    project = tmp_path / "hooks-only"
    project.mkdir()
    report = install(project, "--no-mcp")
    assert "mcp" not in report
    assert not (project / ".mcp.json").exists()


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
    entry = json.loads((project / ".mcp.json").read_text())["mcpServers"]["onlooker"]

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

    assert anyio.run(tools) == ["get_observations", "observations", "read", "search"]
