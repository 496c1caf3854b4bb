"""The observer's commands and tools in opencode (specs/scoring.md, specs/hosts.md).

`/observer NAME ARGS` (the plugin's `observer` command) is answered here, in the hook service,
with the observer command of that name over the project of the session's folder, as the
`onlooker observer` CLI would answer it; the plugin puts the text in place of the command's
prompt. `/observer score` with no agent queues the session's score for the worker (a judge never
runs inside a hook) and says so; the score reaches the user as a notice.

The `observer_*` custom tools are the MCP server's tools of the same names (same arguments, same
checks, same refusals), answered with their text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ...core.events import UserPrompt
from ...errors import OnlookerError, ScoringError
from ...mcp.observer_specs import OBSERVER_TOOLS
from ...mcp.tools import Tools
from ...runtime import Runtime
from ...scoring import JOB_KIND, Answer, ObserverCommands, Scores, score_job
from ...scoring.material import own_command, session_events
from ...scoring.settings import ScoringSettings
from ...store.home import project_key

HOST = "opencode"
COMMAND = "observer"
"""The opencode command the plugin adds: `/observer status`, `/observer accept 2`, …"""
TOOL_NAMES = frozenset(spec.name for spec in OBSERVER_TOOLS)


def tool_specs() -> list[dict[str, Any]]:
    """The observer tools as the plugin declares them: name, description, JSON schema."""
    return [
        {"name": s.name, "description": s.description, "schema": s.input_schema}
        for s in OBSERVER_TOOLS
    ]


def tool_text(runtime: Runtime, cwd: str, session_id: str, name: str, args: Any) -> str:
    """Observer tool `name`'s answer (a refusal names the argument at fault)."""
    if runtime.store is None:
        return json.dumps({"status": "error", "error": "onlooker has no store"})
    root, _ = _settings(runtime, cwd)
    project = project_of(runtime, cwd)
    tools = Tools(runtime.store.home, project, session_id, root=root, _store=runtime.store)
    return tools.call(name, args if isinstance(args, Mapping) else {}).text


def command_text(runtime: Runtime, cwd: str, session_id: str, arguments: str) -> str:
    """What `/observer ARGUMENTS` shows: the command's answer, or why it could not be done."""
    name, rest = typed_line(arguments)
    name = name or "help"
    if runtime.store is None:
        return "onlooker: no store to read scores from"
    root, settings = _settings(runtime, cwd)
    project = project_of(runtime, cwd)
    commands = ObserverCommands(runtime.store, project, root, settings)
    try:
        if name == "score" and not (rest and _is_agent(commands, rest)):
            return _queue_score(runtime, project, session_id, root, settings, rest)
        return typed(commands, name, rest).text
    except OnlookerError as exc:
        return f"onlooker: {exc}"


def typed_line(arguments: str) -> tuple[str, str]:
    """The command's name and the text after it, as opencode hands them over: typed in its TUI,
    as is; from `opencode run --command observer …`, each argument holding a space double-quoted
    (`\\"` inside), which is taken off when the name or the rest is one such part."""
    name, _, rest = _unquoted(arguments.strip()).partition(" ")
    return name.lower(), _unquoted(rest.strip())


def _unquoted(text: str) -> str:
    found = _QUOTED.fullmatch(text)
    return _ESCAPED.sub(r"\1", found[1]) if found else text


_QUOTED = re.compile(r'"((?:\\.|[^"\\])*)"')
_ESCAPED = re.compile(r"\\([\\\"])")


def typed(commands: ObserverCommands, name: str, text: str) -> Answer:
    """Observer command `name` with the text typed after it, read as the CLI reads its words."""
    words = text.split()
    first = words[0] if words else ""
    if name in ("status", "suggest", "history", "rollback"):
        by_agent = {"status": commands.status, "suggest": commands.suggest,
                    "history": commands.history, "rollback": commands.rollback}  # fmt: skip
        return by_agent[name](first)
    if name == "score":
        return commands.agent_score(first)
    if name == "accept":
        if not first.isdigit() or int(first) < 1:
            raise ScoringError(
                "accept N: N is a pending improvement's number (see /observer suggest)"
            )
        return commands.accept(int(first))
    if name == "auto":
        prompts = first == "prompts"
        value = (words[1] if len(words) > 1 else "") if prompts else first
        return commands.auto(value, prompts=prompts)
    if name in ("steer", "reject", "unreject"):
        if name != "steer" and not text:
            raise ScoringError(f"{name} needs a pattern" + (" or N" if name == "reject" else ""))
        by_text: dict[str, Callable[[str], Answer]] = {
            "steer": commands.steer, "reject": commands.reject, "unreject": commands.unreject,
        }  # fmt: skip
        return by_text[name](text)
    simple = {"apply": commands.apply, "config": commands.config,
              "rejections": commands.rejections, "help": commands.help}  # fmt: skip
    if name in simple:
        return simple[name]()
    raise ScoringError(f"no observer command {name!r}; /observer help lists them")


def project_of(runtime: Runtime, cwd: str) -> str:
    """The store's project for `cwd`, named as the Runtime names it."""
    if runtime.project:
        return runtime.project
    if not cwd or runtime.configs is None:
        return "default"
    shared = runtime.store.shared if runtime.store is not None else False
    return project_key(runtime.configs.lookup(cwd).root, shared=shared)


def _settings(runtime: Runtime, cwd: str) -> tuple[Path, ScoringSettings]:
    if runtime.configs is None or not cwd:
        return Path(cwd or "."), ScoringSettings()
    loaded = runtime.configs.lookup(cwd)
    return loaded.root, loaded.scoring


def _is_agent(commands: ObserverCommands, name: str) -> bool:
    return any(s.agent_name == name for s in commands.scores.all(commands.project))


def _queue_score(
    runtime: Runtime, project: str, session_id: str, root: Path, settings: ScoringSettings,
    rest: str,
) -> str:  # fmt: skip
    from ...scoring.settings import HOW_TO_TURN_ON

    if not settings.active:
        return HOW_TO_TURN_ON
    store = runtime.store
    assert store is not None
    which = rest.split()[0] if rest else session_id
    if which != session_id and not store.journal(project, which).path.exists():
        known = sorted({s.agent_name for s in Scores(store).all(project)})
        return (
            f"onlooker: no session {which!r} in project {project!r} and no scored agent of that "
            f"name (scored agents: {', '.join(known) or 'none yet'}); /observer history lists "
            "the scored sessions"
        )
    prompts = [e for e in session_events(store, project, which) if isinstance(e, UserPrompt)]
    if all(own_command(p.text) for p in prompts):
        return f"onlooker: session {which} has run only onlooker's own commands: nothing to score"
    if store.jobs.unfinished(JOB_KIND, which):
        store.jobs.hasten(JOB_KIND, which)  # a turn's score waiting: asked for, it is due now
    else:
        payload = score_job(project, which, root, settings, notice_for=f"{HOST}:{session_id}")
        payload["asked"] = True
        store.enqueue(JOB_KIND, payload, project=project, session_id=which, delay=0.0)
    if runtime.wake_worker is not None:
        runtime.wake_worker(store.home)
    return f"onlooker: session {which} is being scored; its score comes as a notice."
