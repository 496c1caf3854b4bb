"""The `search` and `get_observations` tools over memories and observations (findings).

Memories are searched by `onlooker.memory.search` in the mode asked (text, vector, both);
findings by full text, newest first. The two rankings are merged by reciprocal rank fusion.
Memory ids are integers, finding ids 32-character hex strings, so one id names one item.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..core.clock import utc
from ..core.records import encode
from ..errors import BadArguments, SearchError
from ..memory import VectorSide, get_memories
from ..memory import search as search_memories
from ..memory.search import RRF_K
from ..store import FindingQuery, Observation, Store, journal_path
from ..store.identity import display_name, matching_keys
from .tool_specs import MAX_INTEGER

TITLE_LENGTH = 100
KINDS = ("memory", "observation")


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
    kinds: tuple[str, ...] = KINDS

    @classmethod
    def from_arguments(cls, arguments: dict[str, Any]) -> SearchRequest:
        request = cls(
            query=str(arguments["query"]).strip(),
            mode=arguments.get("mode") or "both",
            limit=arguments.get("limit") or 10,
            after=_time(arguments.get("after"), "after"),
            before=_time(arguments.get("before"), "before"),
            projects=tuple(arguments.get("projects") or ()),
            files=tuple(arguments.get("files") or ()),
            kinds=tuple(dict.fromkeys(arguments.get("kinds") or KINDS)),
        )
        if request.after and request.before and request.after >= request.before:
            raise BadArguments("before", "must be later than after")
        return request


def search_items(
    store: Store, request: SearchRequest, vectors: VectorSide | None = None
) -> dict[str, Any]:
    """Memories and findings matching the request, best first, as compact hits. A project is
    named by its key or its folder name (every project of that name)."""
    if request.projects:
        known = store.project_keys()
        keys = [k for name in request.projects for k in (matching_keys(known, name) or [name])]
        request = dataclasses.replace(request, projects=tuple(dict.fromkeys(keys)))
    rankings: list[list[dict[str, Any]]] = []
    searched: dict[str, str] = {}
    if "memory" in request.kinds:
        rankings.append(_memory_hits(store, request, vectors))
        searched["memories"] = request.mode if vectors is not None else "text"
    if "observation" in request.kinds:
        rankings.append(_finding_hits(store, request))
        searched["observations"] = "text"
    hits = _fused(rankings, request.limit)
    return {"query": request.query, "searched": searched, "count": len(hits), "results": hits}


def get_items(store: Store, ids: Sequence[int | str], project: str | None = None) -> dict[str, Any]:
    """Memories (integer ids, or their ASCII digits) and findings (other string ids) in the order
    asked; unknown under `missing`. With `project`, items of other projects are not given: their
    ids are listed under `other_projects`."""
    memory_ids = [int(i) for i in ids if _is_memory_id(i)]
    memories = {m.id: m for m in get_memories(store, memory_ids)} if memory_ids else {}
    findings = {o.id: o for o in store.get(tuple(str(i) for i in ids if not _is_memory_id(i)))}
    items: list[dict[str, Any]] = []
    missing: list[int | str] = []
    elsewhere: list[int | str] = []
    for given in ids:
        if _is_memory_id(given) and int(given) in memories:
            item = {"kind": "memory", **memories[int(given)].to_dict()}
        elif not _is_memory_id(given) and str(given) in findings:
            item = {"kind": "observation", **findings[str(given)].to_dict()}
        else:
            missing.append(given)
            continue
        if project is not None and item.get("project") != project:
            elsewhere.append(given)
            continue
        items.append({**item, "journal": _journal(store, item)})
    found: dict[str, Any] = {"count": len(items), "observations": items, "missing": missing}
    if elsewhere:
        found["other_projects"] = elsewhere
    return found


def _journal(store: Store, item: dict[str, Any]) -> str | None:
    """The session journal an item came from, as `read` takes it, when there is one."""
    session = item.get("session_id")
    if not session:
        return None
    path = journal_path(store.home, str(item.get("project", "")), str(session))
    return path.relative_to(store.home).as_posix() if path.is_file() else None


def title_of(content: str) -> str:
    """The first line of a text, clipped: what a finding's hit shows as its title."""
    first = content.strip().split("\n", 1)[0]
    return first if len(first) <= TITLE_LENGTH else first[: TITLE_LENGTH - 1] + "…"


def _memory_hits(
    store: Store, request: SearchRequest, vectors: VectorSide | None
) -> list[dict[str, Any]]:
    try:
        found = search_memories(
            store, request.query, request.mode, request.limit,  # type: ignore[arg-type]
            request.after, request.before, request.projects, request.files, vectors=vectors,
        )  # fmt: skip
    except SearchError as exc:
        raise BadArguments("mode", str(exc)) from None
    return [{"kind": "memory", **memory.compact()} for memory in found]


def _finding_hits(store: Store, request: SearchRequest) -> list[dict[str, Any]]:
    hits: list[Observation] = []
    for project in request.projects or (None,):
        query = FindingQuery(
            project=project,
            text=request.query,
            created_after=request.after,
            created_before=request.before,
            mentions=request.files,
            sort_by="created_at",
            limit=request.limit,
        )
        hits.extend(store.query(query).observations)
    hits.sort(key=lambda o: encode(o.finding.created_at) or "", reverse=True)
    return [_finding_hit(o) for o in hits[: request.limit]]


def _finding_hit(observation: Observation) -> dict[str, Any]:
    f = observation.finding
    return {
        "kind": "observation",
        "id": f.id,
        "title": title_of(f.content),
        "project": f.project,
        "project_name": display_name(f.project),
        "timestamp": encode(f.created_at),
        "severity": f.severity,
        "status": f.status,
        "observer": f.observer,
    }


def _fused(rankings: Sequence[Sequence[dict[str, Any]]], limit: int) -> list[dict[str, Any]]:
    """Reciprocal rank fusion of best-first hit lists (memories first on a tie)."""
    scored: list[tuple[float, int, int, dict[str, Any]]] = []
    for which, ranking in enumerate(rankings):
        for rank, hit in enumerate(ranking, start=1):
            scored.append((-1.0 / (RRF_K + rank), which, rank, hit))
    scored.sort(key=lambda entry: entry[:3])
    return [entry[3] for entry in scored[:limit]]


def _is_memory_id(value: int | str) -> bool:
    """Memory ids are integers, or ASCII digits ("²" is a digit to str.isdigit) naming a rowid
    SQLite can hold; any other string is a finding id (hex, and maybe all digits)."""
    if isinstance(value, int):
        return True
    if not (value.isascii() and value.isdigit()):
        return False
    digits = value.lstrip("0")
    return 0 < len(digits) <= len(str(MAX_INTEGER)) and int(digits) <= MAX_INTEGER


def _time(value: Any, field: str) -> datetime | None:
    if value is None:
        return None
    text = str(value).strip()
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadArguments(
            field, f"{value!r} is not an ISO 8601 date or time (e.g. 2026-11-23T09:30:00Z)"
        ) from None
    try:
        return utc(parsed)
    except OverflowError:
        raise BadArguments(
            field, f"{value!r} is out of range: in UTC it must fall within years 1 to 9999"
        ) from None
