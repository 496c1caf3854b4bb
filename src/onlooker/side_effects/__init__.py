"""Side effects: work done after tool calls without the agent waiting (archive a written file,
summarize a search, log commands, collect media), run by the worker (specs/side-effects.md).

A custom side effect is a function `(call, ctx)` made an action with `@side_effect(name)`, or
shipped by a package through an `onlooker.side_effects` entry point.
"""

from ._job import JOB_KIND, job_payload, replay_key, run_side_effects
from ._rules import DEFAULT_TOOLS, MEDIA_EXTENSIONS, Limits, Rule, SideEffectSettings
from .actions import EffectContext
from .archive import Archive, Written
from .registry import BUILTIN, Action, action_names, find_action, plugin_actions, side_effect

__all__ = [
    "BUILTIN",
    "DEFAULT_TOOLS",
    "JOB_KIND",
    "MEDIA_EXTENSIONS",
    "Action",
    "Archive",
    "EffectContext",
    "Limits",
    "Rule",
    "SideEffectSettings",
    "Written",
    "action_names",
    "find_action",
    "job_payload",
    "plugin_actions",
    "replay_key",
    "run_side_effects",
    "side_effect",
]
