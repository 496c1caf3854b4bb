"""opencode: a plugin file (`plugin/onlooker.ts`, written by `onlooker install opencode`) forwards
opencode's hooks to the hook service, where `hook_input.answer` translates them onto the Runtime
(specs/hosts.md)."""

from .hook_input import DELIVERED_AT, HOST, answer, event_of
from .install import PLUGIN_FILE, SCOPES, install, plugin_path, plugin_text, uninstall

__all__ = [
    "DELIVERED_AT",
    "HOST",
    "PLUGIN_FILE",
    "SCOPES",
    "answer",
    "event_of",
    "install",
    "plugin_path",
    "plugin_text",
    "uninstall",
]
