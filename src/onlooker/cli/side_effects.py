"""`onlooker side-effects`: what side effects saved (work products, search summaries, activity
logs, media), per session, with the archive folder each went into; and the compliance verdicts."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import load_project
from ..errors import ConfigError
from ..side_effects import Archive, Limits, SideEffectSettings
from .store_options import current_project, open_store, print_json


@click.command(name="side-effects")
@click.option(
    "--session",
    "session_id",
    default=None,
    metavar="ID",
    help="Only this session (the host's session id); default: every session.",
)
@click.option("--project", default=None, metavar="NAME", help="Default: the current directory's.")
@click.option("--limit", type=click.IntRange(min=1), default=200, show_default=True,
              help="Entries at most.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the entries and verdicts as JSON.")
def command(session_id: str | None, project: str | None, limit: int, as_json: bool) -> None:
    """List what side effects saved for the current project (or --project), oldest first, with
    where each went, and the compliance verdicts (pass, retry, gave_up) of its agents."""
    name = current_project(project)
    with open_store() as store:
        saved = store.effects.saved(name, session_id, limit)
        verdicts = store.effects.verdicts(name, session_id, limit)
        root = _settings().archive_root(store.home)
    if as_json:
        print_json({
            "project": name,
            "saved": [
                {**s.listing(), "archive": str(_folder(root, name, s.session_id))} for s in saved
            ],
            "verdicts": [v.listing() for v in verdicts],
        })  # fmt: skip
        return
    if not saved and not verdicts:
        click.echo(f"No side effects or compliance verdicts recorded for project {name!r}.")
        return
    session = None
    for s in saved:
        if s.session_id != session != "":
            session = s.session_id
            click.echo(f"session {s.session_id}  ({_folder(root, name, s.session_id)})")
        where = s.path or "-"
        note = f"  [{s.note}]" if s.note else ""
        click.echo(f"  {s.at:%Y-%m-%d %H:%M:%S}  {s.action:<18} {where}  {s.size:,} B{note}")
    if verdicts:
        click.echo("compliance verdicts")
    for v in verdicts:
        agent = v.agent_type + (f" {v.agent_id}" if v.agent_id else "")
        lacking = f": missing {'; '.join(v.missing)}" if v.missing else ""
        stop = f"(stop {v.attempt})"
        click.echo(f"  {v.at:%Y-%m-%d %H:%M:%S}  {v.verdict:<8} {agent} {stop}{lacking}")


def _settings() -> SideEffectSettings:
    """The current project's side-effect settings (where its archive is)."""
    try:
        config = load_project(".")
    except ConfigError:  # a config that does not validate: the default archive is shown
        config = None
    return (config.side_effects if config else None) or SideEffectSettings()


def _folder(root: Path, project: str, session_id: str) -> Path:
    return Archive(root, project, session_id, Limits()).folder
