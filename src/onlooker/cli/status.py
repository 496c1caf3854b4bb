"""`onlooker status`: the current project's observations in the configured display style.

Styles are seed 000's: progress_bar (default), table, compact; `--json` prints the counts and the
unresolved observations instead.
"""

from __future__ import annotations

import click

from ..display.observations import STYLES, render
from ..store import UNRESOLVED, FindingQuery
from .store_options import current_project, open_store, print_json, project_display


@click.command(name="status")
@click.option(
    "--style",
    type=click.Choice(STYLES),
    default=None,
    help="progress_bar: addressed/total with counts by severity and observer; table: the "
    "unresolved observations; compact: one line. Default: the project config's display style "
    "(hooks-observations-display), else progress_bar.",
)
@click.option("--project", default=None, metavar="NAME", help="Default: the current directory's.")
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="Rows in the table style.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print counts and observations as JSON.")
def command(style: str | None, project: str | None, limit: int, as_json: bool) -> None:
    """Show the observations of the current project (or --project)."""
    name = current_project(project)
    with open_store() as store:
        counts = store.query(FindingQuery(project=name, limit=0))
        rows = store.query(FindingQuery(project=name, statuses=UNRESOLVED, limit=limit))
    if as_json:
        print_json(
            {
                "project": name,
                "count": counts.count,
                "by_status": counts.by("status"),
                "by_severity": counts.by("severity"),
                "by_observer": counts.by("observer"),
                "observations": [o.to_dict() for o in rows.observations],
            }
        )
        return
    from rich.console import Console

    style = style or project_display().style
    Console(highlight=False).print(render(style, name, counts, rows.observations))
