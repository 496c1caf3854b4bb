"""The observer tools (`observer_*`, specs/scoring.md) as calls of the observer commands: the
arguments, already checked against the tool's schema, become one command's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import BadArguments
from ..scoring import Answer, ObserverCommands

Call = Callable[[ObserverCommands, dict[str, Any]], Answer]


def run_observer_tool(commands: ObserverCommands, name: str, arguments: dict[str, Any]) -> Answer:
    """Run observer tool `name` with checked `arguments`."""
    return _CALLS[name](commands, arguments)


def _agent(arguments: dict[str, Any]) -> str:
    return str(arguments.get("agent") or "").strip()


def _auto(commands: ObserverCommands, arguments: dict[str, Any]) -> Answer:
    value = "on" if arguments["enabled"] else "off"
    return commands.auto(value, prompts=arguments.get("target") == "agent_prompts")


def _reject(commands: ObserverCommands, arguments: dict[str, Any]) -> Answer:
    index, pattern = arguments.get("index"), str(arguments.get("pattern") or "").strip()
    if index is not None and pattern:
        raise BadArguments("pattern", "give index or pattern, not both")
    if index is None and not pattern:
        raise BadArguments("index", "give index (a suggestion's number) or pattern")
    return commands.reject(str(index) if index is not None else pattern)


def _steer(commands: ObserverCommands, arguments: dict[str, Any]) -> Answer:
    return commands.steer(str(arguments.get("guidance") or ""))


_CALLS: dict[str, Call] = {
    "observer_status": lambda c, a: c.status(_agent(a)),
    "observer_improve": lambda c, a: c.suggest(_agent(a)),
    "observer_history": lambda c, a: c.history(_agent(a)),
    "observer_auto": _auto,
    "observer_score_agent": lambda c, a: c.agent_score(_agent(a)),
    "observer_reject": _reject,
    "observer_rejections": lambda c, a: c.rejections(),
    "observer_unreject": lambda c, a: c.unreject(str(a["pattern"]).strip()),
    "observer_steer": _steer,
}
