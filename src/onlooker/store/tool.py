"""The `observations` tool: a callable taking and returning request dicts (specs/store.md).

Operations: create_batch, list, get, acknowledge, resolve, clear_resolved. A bad request returns
`{"status": "error", "error": ..., "field": ...}` and leaves everything stored as it was.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ..core.assessment import SEVERITIES, Finding, severity
from ..errors import BadRequest, LifecycleError, StoreError, UnknownFinding
from ._store import Store
from .changes import Observation
from .query import ORDER, STATUSES, FindingQuery

SOURCE_TYPES = ("file", "conversation", "mixed")
ITEM_FIELDS = (
    "observer", "content", "severity", "source_type", "source_ref", "metadata", "category",
    "evidence",
)  # fmt: skip
FILTERS = ("status", "severity", "observer", "session_id")
MAX_LIST_LIMIT = 2**63 - 1
"""The largest `limit` a list takes: SQLite's LIMIT is a signed 64-bit integer."""
MAX_BATCH = 1_000
"""Observations one create_batch takes."""
TEXT_LIMITS = {
    "observer": 200, "category": 200, "source_ref": 2_000, "content": 20_000, "evidence": 20_000,
    "resolution_note": 20_000,
}  # fmt: skip
"""Characters each text field takes."""
MAX_METADATA_DEPTH = 16
"""Levels of objects and arrays in one observation's metadata."""
MAX_METADATA_CHARS = 64 * 1024
"""Characters of one observation's metadata written as JSON."""
REQUEST_FIELDS: dict[str, tuple[str, ...]] = {
    "create_batch": ("observations",),
    "list": ("filters", "sort_by", "limit"),
    "get": ("ids", "observation_id"),
    "acknowledge": ("observation_id",),
    "resolve": ("observation_id", "resolution_note"),
    "clear_resolved": (),
}


class ObservationsTool:
    """`ObservationsTool(store, project=...)(request) -> response`, for agents and the CLI."""

    name = "observations"

    def __init__(self, store: Store, *, project: str, session_id: str = "") -> None:
        self.store = store
        self.project = project
        self.session_id = session_id

    def __call__(self, request: Any) -> dict[str, Any]:
        try:
            return self._operation(_request(request))(request)
        except BadRequest as exc:
            return {"status": "error", "error": str(exc), "field": exc.field}
        except StoreError as exc:
            return {"status": "error", "error": str(exc)}

    def _operation(self, operation: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
        return {
            "create_batch": self._create_batch,
            "list": self._list,
            "get": self._get,
            "acknowledge": self._acknowledge,
            "resolve": self._resolve,
            "clear_resolved": self._clear_resolved,
        }[operation]

    def _create_batch(self, request: dict[str, Any]) -> dict[str, Any]:
        items = request.get("observations")
        if not isinstance(items, list):
            raise BadRequest("observations", "must be a list of observation objects")
        if len(items) > MAX_BATCH:
            raise BadRequest("observations", f"has {len(items)} items; at most {MAX_BATCH}")
        findings = [_finding(item, f"observations[{i}]") for i, item in enumerate(items)]
        created = self.store.create(findings, project=self.project, session_id=self.session_id)
        observations = [c.observation for c in created]
        return {
            "status": "created",
            "count": len(observations),
            "observations": [o.to_dict() for o in observations],
            "by_severity": _count(observations, lambda o: o.finding.severity, SEVERITIES),
            "by_status": _count(observations, lambda o: o.finding.status, STATUSES),
            "new": sum(c.new for c in created),
            "repeated": sum(not c.new for c in created),
        }

    def _list(self, request: dict[str, Any]) -> dict[str, Any]:
        filters = request.get("filters")
        filters = {} if filters is None else filters
        if not isinstance(filters, dict):
            raise BadRequest("filters", "must be an object")
        _known(filters, FILTERS, "filters")
        sort_by = request.get("sort_by", "severity")
        if sort_by not in ORDER:
            raise BadRequest("sort_by", f"{sort_by!r} is not one of: {', '.join(ORDER)}")
        limit = request.get("limit")
        if limit is not None and (type(limit) is not int or not 0 <= limit <= MAX_LIST_LIMIT):
            raise BadRequest("limit", f"must be a whole number from 0 to {MAX_LIST_LIMIT}")
        session = filters.get("session_id")
        if session is not None and not isinstance(session, str):
            raise BadRequest("filters.session_id", "must be a string")
        query = FindingQuery(
            project=self.project,
            statuses=_strings(filters.get("status"), "filters.status", STATUSES),
            severities=_strings(filters.get("severity"), "filters.severity", SEVERITIES),
            observers=_strings(filters.get("observer"), "filters.observer", None),
            session_id=session,
            sort_by=sort_by,
            limit=limit,
        )
        page = self.store.query(query)
        return {
            "status": "ok",
            "count": page.count,
            "observations": [o.to_dict() for o in page.observations],
            "by_severity": page.by("severity"),
            "by_status": page.by("status"),
            "by_observer": page.by("observer"),
        }

    def _get(self, request: dict[str, Any]) -> dict[str, Any]:
        if "observation_id" in request:
            ids = [self._id(request, "observation_id")]
        else:
            raw = request.get("ids")
            if not isinstance(raw, list) or not raw:
                raise BadRequest("ids", "must be a non-empty list of observation ids")
            ids = [self._id({"id": v}, "id", f"ids[{i}]") for i, v in enumerate(raw)]
        return _single("ok", self.store.get(ids, self.project))

    def _acknowledge(self, request: dict[str, Any]) -> dict[str, Any]:
        finding_id = self._id(request, "observation_id")
        try:
            observation = self.store.acknowledge(
                finding_id, project=self.project, session_id=self.session_id
            )
        except LifecycleError as exc:
            raise BadRequest("observation_id", str(exc)) from exc
        return _single("acknowledged", [observation])

    def _resolve(self, request: dict[str, Any]) -> dict[str, Any]:
        finding_id = self._id(request, "observation_id")
        note = request.get("resolution_note")
        if note is not None and not isinstance(note, str):
            raise BadRequest("resolution_note", "must be a string")
        _within("resolution_note", note, "resolution_note")
        observation = self.store.resolve(
            finding_id, note, project=self.project, session_id=self.session_id
        )
        return _single("resolved", [observation])

    def _clear_resolved(self, request: dict[str, Any]) -> dict[str, Any]:
        ids = self.store.clear_resolved(project=self.project, session_id=self.session_id)
        return {"status": "cleared", "count": len(ids), "observations": [], "ids": list(ids)}

    def _id(self, request: dict[str, Any], key: str, field: str | None = None) -> str:
        value = request.get(key)
        if not isinstance(value, str) or not value:
            raise BadRequest(field or key, "is required: the id of an observation (a string)")
        try:
            return self.store.find_id(value, self.project)
        except UnknownFinding as exc:
            raise BadRequest(field or key, str(exc)) from exc


def _request(request: Any) -> str:
    if not isinstance(request, dict):
        raise BadRequest("request", "must be a JSON object with an 'operation'")
    operation = request.get("operation")
    if operation not in REQUEST_FIELDS:
        raise BadRequest("operation", f"{operation!r} is not one of: {', '.join(REQUEST_FIELDS)}")
    _known(request, ("operation", *REQUEST_FIELDS[operation]), "request")
    return str(operation)


def _known(data: dict[str, Any], allowed: Sequence[str], where: str) -> None:
    extra = sorted(set(data) - set(allowed))
    if extra:
        raise BadRequest(
            f"{where}.{extra[0]}" if where != "request" else extra[0],
            f"unknown field; allowed here: {', '.join(allowed)}",
        )


def _finding(item: Any, where: str) -> Finding:
    if not isinstance(item, dict):
        raise BadRequest(where, "must be an object with at least observer and content")
    _known(item, ITEM_FIELDS, where)
    text: dict[str, str | None] = {}
    for key in ("observer", "content", "category", "evidence", "source_ref"):
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            raise BadRequest(f"{where}.{key}", "must be a string")
        _within(f"{where}.{key}", value, key)
        text[key] = value
    for key in ("observer", "content"):
        if not (text[key] or "").strip():
            raise BadRequest(f"{where}.{key}", "is required (a non-empty string)")
    metadata = item.get("metadata")
    metadata = {} if metadata is None else metadata
    if not isinstance(metadata, dict):
        raise BadRequest(f"{where}.metadata", "must be an object")
    _metadata_within(f"{where}.metadata", metadata)
    level = item.get("severity", "info")
    try:
        if not isinstance(level, str):
            raise ValueError(f"must be a string, one of: {', '.join(SEVERITIES)}")
        level = severity(level)
    except ValueError as exc:
        raise BadRequest(f"{where}.severity", str(exc)) from None
    source_type = item.get("source_type", "conversation")
    if source_type not in SOURCE_TYPES:
        raise BadRequest(
            f"{where}.source_type", f"{source_type!r} is not one of: {', '.join(SOURCE_TYPES)}"
        )
    category = text["category"] or metadata.get("category")
    return Finding(
        observer=str(text["observer"]).strip(),
        content=str(text["content"]).strip(),
        severity=level,
        source_type=source_type,
        source_ref=text["source_ref"],
        metadata=metadata,
        category=category if isinstance(category, str) else "",
        evidence=text["evidence"],
    )


def _within(field: str, value: str | None, key: str) -> None:
    limit = TEXT_LIMITS[key]
    if value is not None and len(value) > limit:
        raise BadRequest(field, f"is {len(value):,} characters; at most {limit:,} are taken")


def _metadata_within(field: str, metadata: dict[str, Any]) -> None:
    """BadRequest when metadata is nested deeper than MAX_METADATA_DEPTH (walked without
    recursion) or longer than MAX_METADATA_CHARS as JSON."""
    stack: list[tuple[Any, int]] = [(metadata, 1)]
    while stack:
        item, depth = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        if children and depth >= MAX_METADATA_DEPTH:
            raise BadRequest(field, f"is nested deeper than {MAX_METADATA_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)
    try:
        size = len(json.dumps(metadata, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise BadRequest(field, f"must be plain JSON ({exc})") from None
    if size > MAX_METADATA_CHARS:
        raise BadRequest(field, f"is {size:,} characters as JSON; at most {MAX_METADATA_CHARS:,}")


def _strings(value: Any, field: str, allowed: Sequence[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise BadRequest(field, "must be a string or a list of strings")
    for v in values:
        if allowed is not None and v not in allowed:
            raise BadRequest(field, f"{v!r} is not one of: {', '.join(allowed)}")
    return tuple(values)


def _count(
    observations: Sequence[Observation], key: Callable[[Observation], str], order: Sequence[str]
) -> dict[str, int]:
    counts: dict[str, int] = {}
    for observation in observations:
        counts[key(observation)] = counts.get(key(observation), 0) + 1
    return {name: counts[name] for name in order if name in counts}


def _single(status: str, observations: Sequence[Observation]) -> dict[str, Any]:
    return {
        "status": status,
        "count": len(observations),
        "observations": [o.to_dict() for o in observations],
    }
