"""The Amplifier tool module `tool-onlooker-observations`: the `observations` tool for an Amplifier
agent, so it can list, acknowledge and resolve what onlooker told it, by the ids it was told.

`mount(coordinator, config)` mounts one tool, `observations`, whose requests and answers are the
MCP `observations` tool's (the same schema, the same store operations through `mcp.Tools`, the
same ids and refusals), acting for the project of the session's folder and as its session.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

try:
    from amplifier_core import ToolResult
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "onlooker.hosts.amplifier needs amplifier-core: pip install 'onlooker[amplifier]'"
    ) from exc

from ...config.document import ConfigInvalid, Problem
from ...mcp import Tools
from ...mcp.tool_specs import OBSERVATIONS
from ...store import data_home, project_for
from ._module import _session_id, _working_dir

__all__ = ["ObservationsTool", "mount_tool"]

log = logging.getLogger("onlooker.amplifier")

TOOL_MODULE = "tool-onlooker-observations"


class ObservationsTool:
    """Amplifier's Tool protocol (`name`, `description`, `input_schema`, `execute`) over the
    MCP tool's `observations`. A refused request is a failed ToolResult whose error says why;
    nothing raises into the session."""

    name = OBSERVATIONS.name
    description = OBSERVATIONS.description

    def __init__(self, tools: Tools) -> None:
        self.tools = tools
        self.input_schema: dict[str, Any] = dict(OBSERVATIONS.input_schema)
        self._lock = threading.Lock()  # one store connection: calls take turns

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        try:
            answer = await asyncio.to_thread(self._call, input)
        except Exception as exc:  # the last line: a tool call never takes the session down
            log.exception("onlooker: the observations tool failed")
            return ToolResult(success=False, error={"message": f"observations: {exc}"})
        if answer.error:
            return ToolResult(success=False, output=answer.data, error={"message": answer.text})
        return ToolResult(success=True, output=answer.data)

    def _call(self, input: dict[str, Any]) -> Any:
        with self._lock:
            return self.tools.call(OBSERVATIONS.name, input)

    def close(self) -> None:
        with self._lock:
            self.tools.close()


async def mount_tool(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None]:
    """Amplifier's module entry: mount the `observations` tool for the session's project (its
    `session.working_dir`, else the process's folder). No config is taken. Returns the cleanup,
    which closes the store."""
    if config:
        raise ConfigInvalid(
            [Problem(TOOL_MODULE, 0, f"config.{key}", "unknown setting: this module takes none")
             for key in sorted(map(str, config))]
        )  # fmt: skip
    project = project_for(Path(_working_dir(coordinator)))
    tool = ObservationsTool(Tools(data_home(), project, session_id=_session_id(coordinator)))
    await coordinator.mount("tools", tool, name=tool.name)
    return tool.close
