"""The observations display: findings shown as a progress bar, a table or one compact line.

Also the acknowledgment counts by severity and by observer, and the notices printed when
findings are created or resolved (`show_on_create`, `show_on_resolve`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.assessment import SEVERITIES
from ..errors import ConfigError
from ..store import CLOSED, STATUSES, Created, FindingPage, Observation
from . import SEVERITY_STYLE

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.text import Text

STYLES = ("progress_bar", "table", "compact")
BAR_WIDTH = 24


@dataclass(frozen=True, slots=True)
class DisplayOptions:
    """The config's display options: `style`, `show_on_create`, `show_on_resolve`."""

    style: str = "progress_bar"
    show_on_create: bool = True
    show_on_resolve: bool = True

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ConfigError(f"display.style: {self.style!r} is not one of: {', '.join(STYLES)}")


def status_counts(page: FindingPage, field: str) -> dict[str, dict[str, int]]:
    """Per severity or observer: how many findings are open, acknowledged, resolved, expired."""
    position = ("severity", "status", "observer").index(field)
    counts: dict[str, dict[str, int]] = {}
    for group in page.groups:
        name, status, n = str(group[position]), str(group[1]), int(group[3])
        row = counts.setdefault(name, dict.fromkeys(STATUSES, 0))
        row[status] = row.get(status, 0) + n
    if field == "severity":
        return {name: counts[name] for name in SEVERITIES if name in counts}
    return dict(sorted(counts.items()))


def render(
    style: str,
    project: str,
    counts: FindingPage,
    rows: Sequence[Observation] = (),
    *,
    expand: bool = True,
) -> RenderableType:
    """The project's findings in `style`: counts over all of them, `rows` listed (table, filling
    the width when `expand`, else as wide as its content: for pipes and files)."""
    if style == "table":
        return _table(project, counts, rows, expand)
    if style == "compact":
        return _compact(project, counts)
    return _progress(project, counts)


def render_text(
    style: str,
    project: str,
    counts: FindingPage,
    rows: Sequence[Observation] = (),
    width: int = 100,
) -> str:
    """`render` as plain text (no colour), for files, pipes and tests."""
    import io

    from rich.console import Console

    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    console.print(render(style, project, counts, rows))
    return out.getvalue()


class ObservationsDisplay:
    """Prints findings and lifecycle notices on a console, as the options say."""

    def __init__(self, options: DisplayOptions | None = None, console: Console | None = None):
        from rich.console import Console

        self.options = options or DisplayOptions()
        self.console = console or Console()

    def status(self, project: str, counts: FindingPage, rows: Sequence[Observation] = ()) -> None:
        self.console.print(render(self.options.style, project, counts, rows))

    def created(self, created: Sequence[Created]) -> None:
        if self.options.show_on_create and created:
            self.console.print(created_notice(created))

    def resolved(self, observation: Observation) -> None:
        if self.options.show_on_resolve:
            self.console.print(resolved_notice(observation))


def created_notice(created: Sequence[Created]) -> Text:
    """'+ 2 observations (1 repeated): [high] Security Reviewer: ...' on one line each."""
    from rich.text import Text

    new = sum(c.new for c in created)
    text = Text(f"+ {new} new observation{'s' * (new != 1)}", style="bold")
    if len(created) - new:
        text.append(f", {len(created) - new} seen again")
    for item in created:
        f = item.observation.finding
        text.append("\n  ")
        text.append(f"[{f.severity}]", style=SEVERITY_STYLE[f.severity])
        text.append(f" {f.observer}: {_line(f.content)}")
        if not item.new:
            text.append(f" (×{item.observation.occurrences})", style="dim")
    return text


def resolved_notice(observation: Observation) -> Text:
    from rich.text import Text

    f = observation.finding
    text = Text("✓ resolved ", style="green")
    text.append(f"[{f.severity}]", style=SEVERITY_STYLE[f.severity])
    text.append(f" {f.observer}: {_line(f.content)}")
    if f.resolution_note:
        text.append(f" — {f.resolution_note}", style="dim")
    return text


def _compact(project: str, counts: FindingPage) -> Text:
    from rich.text import Text

    text = Text(f"{project}: ", style="bold")
    if not counts.count:
        text.append("no observations")
        return text
    by_status = counts.by("status")
    open_by = status_counts(counts, "severity")
    text.append(f"{by_status.get('open', 0)} open")
    parts = [(n["open"], name) for name, n in open_by.items() if n["open"]]
    if parts:
        text.append(" (")
        for i, (n, name) in enumerate(parts):
            text.append(", " if i else "")
            text.append(f"{n} {name}", style=SEVERITY_STYLE[name])
        text.append(")")
    text.append(f" · {by_status.get('acknowledged', 0)} acknowledged")
    text.append(f" · {by_status.get('resolved', 0)} resolved")
    if by_status.get("expired"):
        text.append(f" · {by_status['expired']} expired", style="dim")
    return text


def _progress(project: str, counts: FindingPage) -> RenderableType:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    total = counts.count
    by_status = counts.by("status")
    addressed = by_status.get("acknowledged", 0) + by_status.get("resolved", 0)
    head = Text(f"Observations · {project}  ", style="bold")
    head.append_text(_bar(addressed, total))
    head.append(f"  {addressed}/{total} addressed")
    if by_status.get("expired"):  # closed when their session or episode ended: not addressed
        head.append(f" · {by_status['expired']} expired unaddressed", style="dim")
    if not total:
        return Group(head)
    parts: list[RenderableType] = [head]
    for field, title in (("severity", "by severity"), ("observer", "by observer")):
        grid = Table.grid(padding=(0, 2))
        grid.add_row(
            Text(title, style="dim"), "", "", Text("open  ack  resolved  expired", style="dim")
        )
        for name, n in status_counts(counts, field).items():
            done = n["acknowledged"] + n["resolved"]
            row_total = sum(n.values())
            label = Text(name, style=SEVERITY_STYLE.get(name, ""))
            numbers = (
                f"{n['open']:>4}  {n['acknowledged']:>3}  {n['resolved']:>8}  {n['expired']:>7}"
            )
            grid.add_row(label, _bar(done, row_total, 12), f"{done}/{row_total}", numbers)
        parts.extend((Text(""), grid))
    return Group(*parts)


def _table(
    project: str, counts: FindingPage, rows: Sequence[Observation], expand: bool = True
) -> RenderableType:
    from rich import box
    from rich.console import Group
    from rich.table import Table

    table = Table(
        title=f"Observations · {project}", title_justify="left", expand=expand, box=box.SIMPLE_HEAD
    )
    table.add_column("id", no_wrap=True)
    table.add_column("severity", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("observer", ratio=1, min_width=10)
    table.add_column("observation", ratio=3, min_width=24)
    table.add_column("seen", justify="right", no_wrap=True)
    for row in rows:
        f = row.finding
        table.add_row(
            f.id[:8],
            f"[{SEVERITY_STYLE[f.severity]}]{f.severity}[/]",
            f.status,
            _escape(f.observer),
            _escape(_line(f.content, 200)),
            f"×{row.occurrences}",
        )
    parts: list[RenderableType] = [table, _compact(project, counts)]
    by_status = counts.by("status")
    unresolved = counts.count - sum(by_status.get(status, 0) for status in CLOSED)
    if len(rows) < unresolved:
        parts.insert(1, f"… and {unresolved - len(rows)} more unresolved")
    return Group(*parts)


def _bar(done: int, total: int, width: int = BAR_WIDTH) -> Text:
    from rich.text import Text

    filled = round(width * done / total) if total else 0
    return Text("█" * filled, style="green") + Text("░" * (width - filled), style="dim")


def _line(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _escape(text: str) -> Any:
    from rich.markup import escape

    return escape(text)
