"""The `search` and `get_observations` tools over what the store holds: observations (findings).

Hits are compact (id, kind, title, project, timestamp); `get_items` returns the full items.
Findings are searched by full text in every mode (they have no vectors); the answer says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..clock import parse_time
from ..records import encode
from ..store import FindingQuery, Observation, Store
from .arguments import BadArguments

CANDIDATES = 1_000
"""Most full-text matches per project looked at before the time and file filters."""
TITLE_LENGTH = 100
_EPOCH = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """The `search` tool's arguments, checked."""

    query: str
    mode: str = "both"
    limit: int = 10
    after: datetime | None = None
    before: datetime | None = None
    projects: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    @classmethod
    def from_arguments(cls, arguments: dict[str, Any]) -> SearchRequest:
        return cls(
            query=str(arguments["query"]).strip(),
            mode=arguments.get("mode") or "both",
            limit=arguments.get("limit") or 10,
            after=_time(arguments.get("after"), "after"),
            before=_time(arguments.get("before"), "before"),
            projects=tuple(arguments.get("projects") or ()),
            files=tuple(arguments.get("files") or ()),
        )


def search_findings(store: Store, request: SearchRequest) -> dict[str, Any]:
    """Findings matching every word of the query, newest first, filtered by the request."""
    hits: list[Observation] = []
    for project in request.projects or (None,):
        query = FindingQuery(
            project=project, text=request.query, sort_by="created_at", limit=CANDIDATES
        )
        hits.extend(o for o in store.query(query).observations if _wanted(o, request))
    hits.sort(key=lambda o: o.finding.created_at or _EPOCH, reverse=True)
    shown = hits[: request.limit]
    return {
        "query": request.query,
        "mode": request.mode,
        "searched": {"observations": "text"},
        "count": len(shown),
        "results": [finding_hit(o) for o in shown],
    }


def finding_hit(observation: Observation) -> dict[str, Any]:
    """A compact search hit for a finding."""
    f = observation.finding
    return {
        "id": f.id,
        "kind": "observation",
        "title": title_of(f.content),
        "project": f.project,
        "timestamp": encode(f.created_at),
        "severity": f.severity,
        "status": f.status,
        "observer": f.observer,
    }


def get_items(store: Store, ids: Sequence[str]) -> dict[str, Any]:
    """The full items with these ids, in the order asked; unknown ids under `missing`."""
    found = {o.id: o for o in store.get(tuple(ids))}
    items = [{"kind": "observation", **found[i].to_dict()} for i in ids if i in found]
    missing = [i for i in ids if i not in found]
    return {"count": len(items), "observations": items, "missing": missing}


def title_of(content: str) -> str:
    """The first line of a text, clipped: what a hit shows."""
    first = content.strip().split("\n", 1)[0]
    return first if len(first) <= TITLE_LENGTH else first[: TITLE_LENGTH - 1] + "…"


def _wanted(observation: Observation, request: SearchRequest) -> bool:
    f = observation.finding
    if request.after and (f.created_at is None or f.created_at < request.after):
        return False
    if request.before and (f.created_at is None or f.created_at >= request.before):
        return False
    if request.files:
        text = " ".join(t for t in (f.source_ref, f.content, f.evidence) if t)
        return any(path in text for path in request.files)
    return True


def _time(value: Any, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(str(value).strip())
    except ValueError:
        raise BadArguments(
            field, f"{value!r} is not an ISO 8601 date or time (e.g. 2026-11-23T09:30:00Z)"
        ) from None
