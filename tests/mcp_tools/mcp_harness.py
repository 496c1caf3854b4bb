"""A real `onlooker mcp` subprocess driven by the real `mcp` client over stdio.

The server gets its own data home and Claude Code config folder under tmp; `McpServer.call`
runs one tool call synchronously through a blocking portal that keeps the session open.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult, Tool

from onlooker.store import project_for

ONLOOKER = Path(sys.executable).with_name("onlooker")


@dataclass
class McpServer:
    """A running server: its data home, Claude Code config folder, and a session to call."""

    home: Path
    claude: Path
    portal: BlockingPortal
    session: ClientSession
    project: str  # the store key of the folder the server runs in

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        return self.portal.call(self.session.call_tool, name, arguments)

    def data(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The structured answer of a call that must succeed."""
        result = self.call(name, arguments)
        assert not result.is_error, result.content
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    def refusal(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The structured answer of a call that must be refused."""
        result = self.call(name, arguments)
        assert result.is_error, result.structured_content
        assert isinstance(result.structured_content, dict)
        assert result.structured_content["status"] == "error"
        return result.structured_content

    def tools(self) -> list[Tool]:
        return self.portal.call(self.session.list_tools).tools

    @property
    def projects(self) -> Path:
        return self.claude / "projects"


def server_parameters(home: Path, claude: Path, *args: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(ONLOOKER),
        args=["mcp", *args],
        env={"ONLOOKER_HOME": str(home), "CLAUDE_CONFIG_DIR": str(claude), **_python_path()},
        cwd=str(home.parent),
    )


def _python_path() -> dict[str, str]:
    """PYTHONPATH as the tests have it, so the server runs the source under test (a worktree
    sharing a virtualenv installed from another checkout)."""
    path = os.environ.get("PYTHONPATH")
    return {"PYTHONPATH": path} if path else {}


@contextmanager
def running_server(root: Path, *args: str) -> Iterator[McpServer]:
    """Start `onlooker mcp` in the project folder `root` (marked with `.onlooker`, as Claude Code
    starts it in the project), with a data home and Claude Code config folder under it."""
    project = project_folder(root)
    home, claude = root / "onlooker-home", root / "claude-config"
    (claude / "projects").mkdir(parents=True, exist_ok=True)
    params = server_parameters(home, claude, *args)
    with (
        (root / "server-stderr.log").open("w") as errlog,
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(stdio_client(params, errlog=errlog)) as (read, write),
        portal.wrap_async_context_manager(
            ClientSession(read, write, read_timeout_seconds=60)
        ) as session,
    ):
        portal.call(session.initialize)
        yield McpServer(home, claude, portal, session, project)


def project_folder(root: Path) -> str:
    """Make `root` a project folder and return its store key."""
    (root / ".onlooker").mkdir(parents=True, exist_ok=True)
    return project_for(str(root))
