"""Job handlers by kind: the built-in ones and those plugins add (`onlooker.jobs` entry points).

A handler is `handle(job, ctx)`; plugins are loaded only for a kind that is not built in.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

from ... import plugins
from ...errors import PluginError
from ...plugins import Plugin

Handler = Callable[[Any, Any], None]
"""`handle(job, ctx)`: runs one claimed Job with the WorkerContext."""

HANDLERS: dict[str, str] = {
    "review.run": "onlooker.reviewers._job:handle",
    "memory.extract": "onlooker.memory.extract:handle",
    "score.session": "onlooker.hosts.claude_code.scoring_job:handle",
    "side_effect.run": "onlooker.side_effects._job:handle",
}
"""Job kind -> the built-in handler that runs it, as "module:function"."""

_lock = threading.RLock()
_from_plugins: dict[str, tuple[Handler, Plugin]] = {}


def handler_for(kind: str) -> Handler | None:
    """The handler of a job kind: built in, else a plugin's; None when there is none."""
    target = HANDLERS.get(kind)
    if target is not None:
        module, _, name = target.partition(":")
        handler: Handler = getattr(importlib.import_module(module), name)
        return handler
    found = plugin_handlers().get(kind) or plugin_handlers(fresh=True).get(kind)
    return found[0] if found is not None else None  # looked again: a plugin installed since


def plugin_handlers(*, fresh: bool = False) -> dict[str, tuple[Handler, Plugin]]:
    """Job kind -> (handler, the plugin that registered it), loaded once a process (or again
    when `fresh`)."""
    with _lock:
        if fresh:
            plugins.forget(plugins.JOBS)
        if plugins.loaded(plugins.JOBS) is None:
            _from_plugins.clear()
        plugins.load_group(plugins.JOBS, _register_for)
        return dict(_from_plugins)


def known_kinds() -> str:
    """The job kinds there are, for an error message (loads the plugins)."""
    text = ", ".join([*sorted(HANDLERS), *sorted(plugin_handlers())])
    failed = plugins.loaded(plugins.JOBS)
    if failed is not None and failed.failures:
        text += "; plugins that failed to load: " + "; ".join(str(f) for f in failed.failures)
    return text


def _register_for(plugin: Plugin) -> Callable[[str, Handler], None]:
    def register(kind: str, handler: Handler) -> None:
        """Run jobs of `kind` (a name no one else uses, `package.action`) with `handler`."""
        if not isinstance(kind, str) or not kind:
            raise PluginError(f"a job kind is a non-empty name, got {kind!r}")
        if not callable(handler):
            raise PluginError(f"the handler of {kind!r} is not a function (job, ctx)")
        if kind in HANDLERS or kind in _from_plugins:
            raise PluginError(f"job kind {kind!r} is taken")
        _from_plugins[kind] = (handler, plugin)

    return register
