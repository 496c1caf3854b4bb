"""Reports: one self-contained HTML page of what observers saw, per project and per session.

`report_from_store` reads a data home; replay's `report_from_transcripts`
(`onlooker.hosts.recorded.report`) runs observers over recorded sessions; `render_html` and
`write_report` draw either. Scores over time per agent come from `scores_section`. See
specs/report.md.
"""

from .activity import Buckets, activity
from .from_store import DETAILED, OPEN_LIMIT, report_from_store
from .model import (
    Activity,
    AgentScores,
    ImprovementMarker,
    MemoryCounts,
    OpenFinding,
    ProjectReport,
    Report,
    ReviewerCost,
    ScoreRow,
    ScoresSection,
    SessionReport,
    TimelineEntry,
    scores_section,
)
from .render import render_html, write_report
from .sessions import SessionBuilder

__all__ = [
    "DETAILED",
    "OPEN_LIMIT",
    "Activity",
    "AgentScores",
    "Buckets",
    "ImprovementMarker",
    "MemoryCounts",
    "OpenFinding",
    "ProjectReport",
    "Report",
    "ReviewerCost",
    "ScoreRow",
    "ScoresSection",
    "SessionBuilder",
    "SessionReport",
    "TimelineEntry",
    "activity",
    "render_html",
    "report_from_store",
    "scores_section",
    "write_report",
]
