"""`onlooker doctor`: is onlooker healthy here, and what did the hooks leave in the spool?"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..daemon import health as doctor
from ..daemon.spool import discard_refused
from ..store.home import data_home, project_root
from .memory_model import describe, memory_model
from .plugins import lines, report


@click.command(name="doctor")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--replay-spool",
    "replay",
    is_flag=True,
    help="Hand spooled hook inputs to the hook handler now (the hook service also does when idle); "
    "one that fails again is refused.",
)
@click.option(
    "--discard-spool",
    "discard",
    is_flag=True,
    help="Remove the refused hook inputs (listed under `refused`): they can never go through.",
)
@click.option(
    "--project",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="A folder of the project whose Claude Code settings to check: its root is the nearest "
    "folder at or above it with .git, .onlooker or onlooker.yaml.",
)
def command(as_json: bool, replay: bool, discard: bool, project: Path) -> None:
    """Report the hook service, spooled hook inputs, recent errors, store health, the job queue,
    the project's config, plugins, installed hooks and whether they can run. Exits 1 when
    something needs attention (a spooled or refused input, a store problem, a stuck job queue, a
    config that does not validate, a plugin that failed to load, a hook command or MCP server that
    cannot run here)."""
    home = data_home()
    replayed = None
    if replay:
        done, failed = doctor.replay_spool(home)
        replayed = {"replayed": done, "refused": failed}
    discarded = discard_refused(home) if discard else None
    data = doctor.diagnose(home, project_root(project)).to_dict()
    if discarded is not None:
        data["discarded"] = discarded
    data["plugins"] = report()
    data["memory_model"] = _memory_model(home, project.absolute())
    if any(plugin["error"] for plugin in data["plugins"]):
        data["healthy"] = False
    if replayed is not None:
        data["replay"] = replayed
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        _print(data)
    raise SystemExit(0 if data["healthy"] else 1)


def _memory_model(home: Path, project: Path) -> dict[str, Any] | None:
    from ..store import Store

    try:
        with Store(home) as store:
            return memory_model(store, project)
    except Exception:  # the store's own problem is reported under `store`
        return None


def _print(data: dict[str, Any]) -> None:
    line = click.echo
    line(f"onlooker doctor: {'ok' if data['healthy'] else 'needs attention'}")
    line(f"  data home      {data['home']}")
    service = data["service"]
    running = f"running, pid {service['pid']}" if service["running"] else "not running"
    line(f"  hook service   {running}{'' if service['running'] else ' (the next hook starts it)'}")
    store = data["store"]
    if store.get("ok"):
        line(f"  store          ok: {store['findings']} findings, {store['journals']} journals")
    else:
        line(f"  store          PROBLEM: {store.get('error') or store.get('integrity')}")
    jobs = store.get("jobs")
    if jobs is not None:
        waiting = f"{jobs['queued']} queued, {jobs['running']} running"
        if jobs["queued"] or jobs["running"]:
            waiting += f", the oldest for {jobs['oldest_seconds']:g} s"
        if jobs["stuck"]:
            waiting += " (STUCK: no worker drains the queue; see logs/worker.log)"
        line(f"  jobs           {waiting}; {jobs['failed']} failed")
        for failure in jobs["latest_failures"]:
            line(f"    {failure['kind']}: {failure['error'][:200]}")
        if jobs.get("side_effects_failed"):
            line(f"  side effects   {jobs['side_effects_failed']} failed for good "
                 "(`onlooker side-effects` lists what was saved)")  # fmt: skip
            for error in jobs["side_effect_failures"]:
                line(f"    {error[:200]}")
    runs = store.get("run_errors") or {}
    if runs.get("recent"):
        line(f"  observer runs  {runs['recent']} ended in an error in the last {runs['days']} days")
        for failure in runs["latest"]:
            line(f"    {failure['observer']}: {failure['error'][:200]}")
    memory = data.get("memory_model")
    if memory is not None:
        line("  memory model   " + "\n                 ".join(describe(memory)))
    if store.get("memories_dropped"):
        line(f"  memory         {store['memories_dropped']} extracted memories dropped by the "
             "quality gate (numeric, too short, an echo, or a repeat)")  # fmt: skip
    spool = data["spool"]
    line(f"  spool          {len(spool)} hook input{'' if len(spool) == 1 else 's'} kept")
    for entry in spool[-5:]:
        line(f"    {Path(entry['file']).name}: {entry['reason']}")
    if spool:
        line("    the hook service replays them when idle (`onlooker doctor --replay-spool`: now)")
    refused = data["refused"]
    if refused:
        line(f"  refused        {len(refused)} hook input{'' if len(refused) == 1 else 's'} that "
             "cannot go through (`onlooker doctor --discard-spool` removes them)")  # fmt: skip
    for entry in refused[-5:]:
        line(f"    {Path(entry['file']).name}: {entry['reason']}")
    if "replay" in data:
        replay = data["replay"]
        line(f"  replayed       {replay['replayed']}, refused {replay['refused']}")
    if "discarded" in data:
        line(f"  discarded      {data['discarded']} refused hook inputs")
    errors = data["recent_errors"]
    line(f"  recent errors  {len(errors)}")
    for error in errors[-5:]:
        line(f"    {error}")
    config = data["config"]
    if config["file"] is None:
        line("  config         no config file: the defaults apply")
    elif config["valid"]:
        line(f"  config         ok: {config['file']}")
    else:
        _config_problems(config)
    for note in config.get("notes", []):
        line(f"    {note}")
    for other in data.get("other_configs", []):
        _config_problems(other)
    plugins = data["plugins"]
    failed = sum(1 for plugin in plugins if plugin["error"])
    packages = len({plugin["package"] or plugin["value"] for plugin in plugins})
    line(
        f"  plugins        {packages} installed" + (f", {failed} FAILED to load" if failed else "")
    )
    for shown in lines(plugins):
        line(f"    {shown}")
    hooks = data["installed_hooks"]
    if not hooks:
        line("  claude code    no onlooker hooks found (`onlooker install claude-code`)")
    for path, events in hooks.items():
        line(f"  claude code    {path}: {', '.join(events)}")
    for problem in data["cannot_run"]:
        line(f"  CANNOT RUN     {problem['file']}: {problem['what']}")
        line(f"    {problem['problem']}")


def _config_problems(config: dict[str, Any]) -> None:
    defaulted = config.get("defaulted") or []
    if defaulted == ["*"]:
        meanwhile = "sessions run with the defaults until it is fixed"
    elif defaulted:
        meanwhile = f"these sections use their defaults until it is fixed: {', '.join(defaulted)}"
    else:
        meanwhile = "those keys are left out until it is fixed"
    click.echo(f"  config         PROBLEMS in {config['file']}; {meanwhile}")
    for problem in config["problems"][:10]:
        click.echo(f"    {problem}")
