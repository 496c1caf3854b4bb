"""Amplifier: the hook module `hooks-onlooker` and the tool module `tool-onlooker-observations`
(entry point group `amplifier.modules`).

`mount(coordinator, config)` registers handlers for session:start, prompt:submit, tool:post,
tool:error, orchestrator:complete, context:pre_compact and session:end; each event goes to the
Runtime, and its feedback comes back as `inject_context` (specs/hosts.md). `mount_tool` mounts the
`observations` tool, the MCP tool's requests and answers over the same store and ids.
"""

from ._events import DELIVERED_AT, EVENTS
from ._module import PRIORITY, ObserverHooks, framed, mount
from ._settings import ModuleSettings, module_settings
from ._tool import ObservationsTool, mount_tool

__amplifier_module_type__ = "hook"

__all__ = [
    "DELIVERED_AT",
    "EVENTS",
    "PRIORITY",
    "ModuleSettings",
    "ObservationsTool",
    "ObserverHooks",
    "framed",
    "module_settings",
    "mount",
    "mount_tool",
]
