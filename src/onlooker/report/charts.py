"""Charts as inline SVG drawn here, in Python: the report needs no chart script, works offline and
without JavaScript, and takes its colours from the page's CSS (so light and dark schemes apply).

Every text that reaches the SVG is escaped; each mark carries a `<title>` a pointer or a screen
reader can show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from markupsafe import Markup, escape

from .model import AgentScores, SessionReport

WIDTH, HEIGHT = 640, 200
LEFT, RIGHT, TOP, BOTTOM = 40, 10, 10, 24
SERIES_CLASSES = 8
"""Categorical colours `c0`..`c7` in the stylesheet; more series than that share the last."""


def _open(label: str, height: int = HEIGHT, cls: str = "chart") -> str:
    return (
        f'<svg class="{cls}" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{escape(label)}" preserveAspectRatio="xMidYMid meet">'
        f"<title>{escape(label)}</title>"
    )


def time_label(at: datetime, width_seconds: int) -> str:
    if width_seconds >= 86400:
        return at.strftime("%Y-%m-%d")
    return at.strftime("%m-%d %H:%M")


def _axes(top: float, starts: Sequence[datetime], width_seconds: int, height: int) -> list[str]:
    """Y gridlines at 0, half and top; the first, middle and last bucket times on X."""
    base = height - BOTTOM
    parts = []
    for fraction in (0.0, 0.5, 1.0):
        y = base - fraction * (base - TOP)
        value = top * fraction
        text = f"{value:g}" if value < 10 else f"{round(value):d}"
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" '
                     f'y2="{y:.1f}"/><text class="tick" x="{LEFT - 4}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{escape(text)}</text>')  # fmt: skip
    if starts:
        step = (WIDTH - LEFT - RIGHT) / len(starts)
        picks = sorted({0, len(starts) // 2, len(starts) - 1})
        for i in picks:
            x = LEFT + step * (i + 0.5)
            anchor = "start" if i == 0 else "end" if i == len(starts) - 1 else "middle"
            label = escape(time_label(starts[i], width_seconds))
            parts.append(f'<text class="tick" x="{x:.1f}" y="{height - 6}" '
                         f'text-anchor="{anchor}">{label}</text>')  # fmt: skip
    return parts


def stacked_bars(
    label: str,
    starts: Sequence[datetime],
    width_seconds: int,
    series: Mapping[str, Sequence[int]],
    classes: Mapping[str, str] | None = None,
) -> Markup:
    """Counts per bucket, one stacked bar a bucket; `classes` names each series' CSS class."""
    classes = classes or {name: f"c{min(i, SERIES_CLASSES - 1)}" for i, name in enumerate(series)}
    totals = [sum(values[i] for values in series.values()) for i in range(len(starts))]
    top = max([*totals, 1])
    base = HEIGHT - BOTTOM
    scale = (base - TOP) / top
    step = (WIDTH - LEFT - RIGHT) / max(len(starts), 1)
    parts = [_open(label), *_axes(top, starts, width_seconds, HEIGHT)]
    for i, start in enumerate(starts):
        y = float(base)
        x = LEFT + step * i + step * 0.1
        for name, values in series.items():
            if not values[i]:
                continue
            h = values[i] * scale
            y -= h
            tip = f"{name} · {time_label(start, width_seconds)}: {values[i]}"
            parts.append(f'<rect class="{classes[name]}" x="{x:.1f}" y="{y:.1f}" '
                         f'width="{step * 0.8:.1f}" height="{h:.1f}"><title>{escape(tip)}'
                         "</title></rect>")  # fmt: skip
    parts.append("</svg>")
    return Markup("".join(parts))


def lines(
    label: str,
    starts: Sequence[datetime],
    width_seconds: int,
    series: Mapping[str, Sequence[int]],
) -> Markup:
    """One line per series over the buckets, a dot on each non-zero count."""
    top = max([v for values in series.values() for v in values] + [1])
    base = HEIGHT - BOTTOM
    step = (WIDTH - LEFT - RIGHT) / max(len(starts), 1)
    parts = [_open(label), *_axes(top, starts, width_seconds, HEIGHT)]
    for n, (name, values) in enumerate(series.items()):
        cls = f"c{min(n, SERIES_CLASSES - 1)}"
        points = [
            (LEFT + step * (i + 0.5), base - v * (base - TOP) / top) for i, v in enumerate(values)
        ]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(f'<polyline class="line {cls}" points="{path}"/>')
        for (x, y), v, start in zip(points, values, starts, strict=True):
            if v:
                tip = escape(f"{name} · {time_label(start, width_seconds)}: {v}")
                parts.append(f'<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" r="2.5">'
                             f"<title>{tip}</title></circle>")  # fmt: skip
    parts.append("</svg>")
    return Markup("".join(parts))


def hbars(label: str, rows: Sequence[tuple[str, float, str]], cls: str = "c0") -> Markup:
    """Horizontal bars: (name, value, the value as text) per row, longest first as given."""
    height = 22 * max(len(rows), 1) + 8
    top = max([value for _, value, _ in rows] + [1e-12])
    name_width = 180
    span = WIDTH - name_width - 90
    parts = [_open(label, height, "chart bars")]
    for i, (name, value, text) in enumerate(rows):
        y = 6 + i * 22
        w = max(value / top * span, 1.0 if value else 0.0)
        short = name if len(name) <= 28 else name[:27] + "…"
        parts.append(f'<text class="tick" x="{name_width - 6}" y="{y + 13}" text-anchor="end">'
                     f"{escape(short)}</text>"
                     f'<rect class="{cls}" x="{name_width}" y="{y + 2}" width="{w:.1f}" '
                     f'height="14"><title>{escape(f"{name}: {text}")}</title></rect>'
                     f'<text class="tick" x="{name_width + w + 6:.1f}" y="{y + 13}">'
                     f"{escape(text)}</text>")  # fmt: skip
    parts.append("</svg>")
    return Markup("".join(parts))


def session_strip(session: SessionReport) -> Markup:
    """A session's tool calls as ticks (failed ones marked) and its assessments and failures as
    markers on one time line."""
    height = 56
    start, end = session.started, session.ended
    label = f"timeline of session {session.session_id}"
    parts = [_open(label, height, "chart strip")]
    if start is not None and end is not None:
        span = max((end - start).total_seconds(), 1.0)

        def x_of(at: datetime) -> float:
            return LEFT + (at - start).total_seconds() / span * (WIDTH - LEFT - RIGHT)

        parts.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="30" y2="30"/>')
        for at, ok in session.tool_times:
            cls = "tick-ok" if ok else "tick-failed"
            parts.append(f'<line class="{cls}" x1="{x_of(at):.1f}" x2="{x_of(at):.1f}" '
                         f'y1="{24 if ok else 18}" y2="36"/>')  # fmt: skip
        for entry in session.timeline:
            if entry.kind not in ("assessment", "failure", "report"):
                continue
            cls = f"sev-{entry.severity}" if entry.severity else "sev-failure"
            x = x_of(entry.at)
            parts.append(f'<path class="{cls}" d="M{x:.1f},44 l5,9 h-10 z">'
                         f"<title>{escape(entry.label)}</title></path>")  # fmt: skip
        parts.append(f'<text class="tick" x="{LEFT}" y="12">{escape(start.strftime("%H:%M:%S"))}'
                     f'</text><text class="tick" x="{WIDTH - RIGHT}" y="12" text-anchor="end">'
                     f"{escape(end.strftime('%H:%M:%S'))}</text>")  # fmt: skip
    parts.append("</svg>")
    return Markup("".join(parts))


def score_chart(agents: Sequence[AgentScores]) -> Markup:
    """Overall score (0..1, or whatever range the rows use) over time, a line per agent, with a
    marker where an improvement was applied (▲) or rolled back (▼)."""
    points = [p for a in agents for p in a.points]
    times = [p.timestamp for p in points]
    low = min([p.overall_score for p in points] + [0.0])
    high = max([p.overall_score for p in points] + [1.0])
    first, last = min(times), max(times)
    span = max((last - first).total_seconds(), 1.0)
    base = HEIGHT - BOTTOM
    parts = [_open("scores over time per agent")]
    parts.extend(_axes(high - low, [], 86400, HEIGHT))

    def place(at: datetime, score: float) -> tuple[float, float]:
        x = LEFT + (at - first).total_seconds() / span * (WIDTH - LEFT - RIGHT)
        return x, base - (score - low) / ((high - low) or 1) * (base - TOP)

    for n, agent in enumerate(agents):
        cls = f"c{min(n, SERIES_CLASSES - 1)}"
        xy = [place(p.timestamp, p.overall_score) for p in agent.points]
        parts.append(f'<polyline class="line {cls}" points="'
                     + " ".join(f"{x:.1f},{y:.1f}" for x, y in xy) + '"/>')  # fmt: skip
        for (x, y), p in zip(xy, agent.points, strict=True):
            tip = f"{agent.agent} · {p.session_id}: {p.overall_score:g}"
            parts.append(f'<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" r="3">'
                         f"<title>{escape(tip)}</title></circle>")  # fmt: skip
            for marker in p.markers:
                glyph = {"applied": "▲", "rolled_back": "▼"}.get(marker.kind, "Δ")
                note = marker.label or marker.kind.replace("_", " ")
                if marker.delta is not None:
                    note += f" ({marker.delta:+g})"
                parts.append(f'<text class="marker marker-{marker.kind}" x="{x:.1f}" '
                             f'y="{y - 8:.1f}" text-anchor="middle">{glyph}<title>'
                             f"{escape(note)}</title></text>")  # fmt: skip
    parts.append(f'<text class="tick" x="{LEFT}" y="{HEIGHT - 6}">'
                 f"{escape(first.strftime('%Y-%m-%d'))}</text>"
                 f'<text class="tick" x="{WIDTH - RIGHT}" y="{HEIGHT - 6}" text-anchor="end">'
                 f"{escape(last.strftime('%Y-%m-%d'))}</text></svg>")  # fmt: skip
    return Markup("".join(parts))
