"""`onlooker report [PATH...]`: one self-contained HTML page of what observers saw.

Without PATH it reads the store (every project, or --project); with PATHs it replays those
recorded sessions first, as `onlooker replay` does. Prints the path written, or `--json`.
"""

from __future__ import annotations

import re
import webbrowser
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import click

from ..core.clock import SystemClock, parse_time
from ..errors import ConfigError, TranscriptError
from ..store.home import data_home, safe_name
from .store_options import current_project, fail, open_store, print_json

_RELATIVE = re.compile(r"^(\d+)([hdw])$")


@click.command(name="report")
@click.argument("paths", nargs=-1, metavar="[PATH...]")
@click.option("--project", default=None, metavar="NAME", help="Only this project.")
@click.option(
    "--since",
    metavar="DATE",
    help="Only what happened from DATE on: 2026-03-01, 2026-03-01T12:00, or 7d, 12h, 2w ago.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The HTML file to write; default: a new file in the data home's reports/ folder "
    "(its path is printed).",
)
@click.option("--open", "open_it", is_flag=True, help="Open the report in the web browser.")
@click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")
@click.option(
    "--timelines",
    type=click.IntRange(min=0),
    default=25,
    show_default=True,
    help="Sessions per project shown with their timeline (the most recent).",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0, min_open=True),
    metavar="MINUTES",
    help="With PATHs: give each replayed session a deadline this many minutes after it started.",
)
@click.option(
    "--observer",
    "observer_names",
    multiple=True,
    metavar="NAME",
    help="With PATHs: replay only this observer (repeatable).",
)
def command(
    paths: Sequence[str],
    project: str | None,
    since: str | None,
    out: Path | None,
    open_it: bool,
    as_json: bool,
    timelines: int,
    deadline: float | None,
    observer_names: Sequence[str],
) -> None:
    """Write one self-contained HTML report: per project, tool calls, warnings and findings over
    time by observer and severity, open findings with their evidence, session timelines,
    reviewer runs with tokens and cost, memory counts, and session scores per agent over time
    with the improvements made to their instructions (applied, rolled back, measured change).

    Without PATH, reads the store ($ONLOOKER_HOME). With PATHs (Claude Code transcripts, OpenAI
    message files, or folders of them), replays them through the observers first. The page needs
    no network: open it anywhere, attach it to an issue.
    """
    from ..report import render_html

    start = parse_since(since) if since else None
    if paths:
        report = _from_transcripts(paths, project, start, timelines, deadline, observer_names)
    else:
        if deadline is not None or observer_names:
            fail("--deadline and --observer apply to replayed PATHs only")
        from ..report import report_from_store

        key = current_project(project) if project else None
        with open_store() as store:
            report = report_from_store(store, project=key, since=start, detailed=timelines)
    html = render_html(report)
    if out is None:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = data_home() / "reports" / f"report-{safe_name(project or 'all')}-{stamp}.html"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(html, encoding="utf-8")
    except OSError as exc:
        fail(f"{out}: cannot write the report ({exc.strerror or exc})")
    if as_json:
        print_json(
            {
                "out": str(out.resolve()),
                "bytes": len(html.encode()),
                "scores": sum(len(agent.points) for agent in report.scores.agents),
                "projects": [
                    {
                        "name": p.name,
                        "key": p.key,
                        "sessions": len(p.sessions),
                        "tool_calls": p.tool_calls,
                        "warnings": p.warnings,
                        "findings": p.findings_total,
                        "open_findings": p.open_total,
                    }
                    for p in report.projects
                ],
            }
        )
    else:
        sessions = sum(len(p.sessions) for p in report.projects)
        click.echo(f"report of {len(report.projects)} project(s), {sessions} session(s): "
                   f"{out.resolve()}")  # fmt: skip
    if open_it:
        webbrowser.open(out.resolve().as_uri())


def _from_transcripts(
    paths: Sequence[str],
    project: str | None,
    since: datetime | None,
    timelines: int,
    deadline: float | None,
    observer_names: Sequence[str],
) -> Any:
    from ..hosts.recorded.replay import observers_named
    from ..hosts.recorded.report import report_from_transcripts
    from ..hosts.recorded.transcripts import transcript_paths

    try:
        observers = observers_named(observer_names)
        files = [file for path in paths for file in transcript_paths(path)]
        return report_from_transcripts(files, observers, deadline_minutes=deadline,
                                       project=project, since=since,
                                       detailed=timelines)  # fmt: skip
    except (ConfigError, TranscriptError) as exc:
        fail(str(exc))


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """--since as a time: an ISO date or date-time (UTC unless it says), or 12h, 7d, 2w ago."""
    relative = _RELATIVE.match(text.strip())
    if relative:
        amount, unit = int(relative[1]), relative[2]
        hours = amount * {"h": 1, "d": 24, "w": 168}[unit]
        return (now or SystemClock().now()) - timedelta(hours=hours)
    try:
        return parse_time(text.strip())
    except ValueError:
        fail(f"--since: {text!r} is not a date (2026-03-01, 2026-03-01T12:00) or 12h, 7d, 2w")
