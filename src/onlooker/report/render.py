"""A report as one self-contained HTML page: Jinja2 with autoescaping (agent text is data, never
markup), the stylesheet and the table-sorting script inline, charts as inline SVG.

The page's Content-Security-Policy allows no network at all and only its own script (by hash), so
even text that slipped past escaping could not run or fetch anything.
"""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import datetime
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from markupsafe import Markup

from ..core.assessment import SEVERITIES, severity_rank
from . import charts
from .model import ProjectReport, Report, SessionReport

PAGE_SIZE = 50
"""Rows of a long table shown at once (the pager shows the others)."""
TOP_OBSERVERS = 7
"""Observers drawn apart in the findings-by-observer chart; the rest are summed as `other`."""


def render_html(report: Report) -> str:
    """The report as one HTML document."""
    env = _environment()
    script = _asset("report.js")
    page: str = env.get_template("report.html.j2").render(
        report=report,
        page_size=PAGE_SIZE,
        projects=[_project_view(p, i) for i, p in enumerate(report.projects)],
        css=Markup(_asset("report.css")),
        script=Markup(script),
        script_hash="sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode(),
        scores_svg=charts.score_chart(report.scores.agents) if not report.scores.empty else "",
    )
    return page


def write_report(report: Report, out: str | Path) -> Path:
    """Write the report's HTML to `out` (its folder is created); the path written."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report), encoding="utf-8")
    return path


@cache
def _asset(name: str) -> str:
    return (resources.files(__package__) / "templates" / name).read_text(encoding="utf-8")


@cache
def _environment() -> Any:
    from jinja2 import Environment, FunctionLoader

    env = Environment(
        loader=FunctionLoader(_asset),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        when=_when, clock=_clock, stamp=_stamp, money=_money, rank=severity_rank,
        minutes=_minutes, strip=charts.session_strip,
    )  # fmt: skip
    return env


def _project_view(project: ProjectReport, number: int) -> dict[str, Any]:
    a = project.activity
    severities: dict[str, str] = {
        name: f"sev-{name}" for name in SEVERITIES if name in a.findings_by_severity
    }
    observers = _top(a.findings_by_observer)
    observer_classes = {name: f"c{min(i, charts.SERIES_CLASSES - 1)}"
                        for i, name in enumerate(observers)}  # fmt: skip
    made = [
        ("activity", "Tool calls and warnings",
         charts.lines("tool calls and warnings over time", a.starts, a.width_seconds,
                      {"tool calls": a.tool_calls, "warnings": a.warnings}),
         [("tool calls", "c0"), ("warnings", "c1")]),
        ("severity", "Findings by severity",
         charts.stacked_bars("findings over time by severity", a.starts, a.width_seconds,
                             a.findings_by_severity, severities),
         list(severities.items())),
        ("observer", "Findings by observer",
         charts.stacked_bars("findings over time by observer", a.starts, a.width_seconds,
                             observers, observer_classes),
         list(observer_classes.items())),
    ]  # fmt: skip
    if project.reviewers:
        priced = any(r.cost_usd for r in project.reviewers)
        rows = [
            (r.observer, r.cost_usd or 0.0, _money(r.cost_usd))
            if priced
            else (
                r.observer,
                float(r.input_tokens + r.output_tokens),
                f"{r.input_tokens + r.output_tokens} tokens",
            )
            for r in project.reviewers
        ]
        title = "Reviewer cost per observer" if priced else "Reviewer tokens per observer"
        made.append(("reviewers", title, charts.hbars(title, rows, "c4"), []))
    priced_total = [r.cost_usd for r in project.reviewers if r.cost_usd is not None]
    return {
        "project": project,
        "anchor": f"p{number}-" + re.sub(r"[^A-Za-z0-9_-]+", "-", project.name)[:40],
        "charts": [{"name": n, "title": t, "svg": s, "legend": lg} for n, t, s, lg in made],
        "runs": sum(r.runs for r in project.reviewers),
        "cost": _money(sum(priced_total)) if priced_total else "no priced runs",
    }


def _top(series: dict[str, tuple[int, ...]] | Any) -> dict[str, tuple[int, ...]]:
    """The TOP_OBSERVERS largest series, the rest summed as `other`."""
    ranked = sorted(series.items(), key=lambda item: -sum(item[1]))
    kept = dict(ranked[:TOP_OBSERVERS])
    rest = [values for _, values in ranked[TOP_OBSERVERS:]]
    if rest:
        kept["other"] = tuple(map(sum, zip(*rest, strict=True)))
    return kept


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC") if at is not None else "—"


def _clock(at: datetime | None) -> str:
    return at.strftime("%H:%M:%S") if at is not None else ""


def _stamp(at: datetime | None) -> str:
    return at.isoformat() if at is not None else ""


def _money(cost: float | None) -> str:
    if cost is None:
        return "unpriced"
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


def _minutes(session: SessionReport) -> str:
    if session.started is None or session.ended is None:
        return "0"
    return f"{(session.ended - session.started).total_seconds() / 60:.1f}"
