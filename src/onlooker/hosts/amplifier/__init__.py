"""Amplifier: the hook module `hooks-onlooker` (entry point group `amplifier.modules`).

`mount(coordinator, config)` registers handlers for session:start, prompt:submit, tool:post,
tool:error, orchestrator:complete, context:pre_compact and session:end; each event goes to the
Runtime, and its feedback comes back as `inject_context` (specs/hosts.md).
"""

from ._events import DELIVERED_AT, EVENTS
from ._module import PRIORITY, ObserverHooks, framed, mount
from ._settings import ModuleSettings, module_settings

__amplifier_module_type__ = "hook"

__all__ = [
    "DELIVERED_AT",
    "EVENTS",
    "PRIORITY",
    "ModuleSettings",
    "ObserverHooks",
    "framed",
    "module_settings",
    "mount",
]
