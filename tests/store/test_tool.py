"""The observations tool: its operations and response shapes; bad requests touch nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from onlooker import FixedClock
from onlooker.store import ObservationsTool, Store

FULL_OBSERVATION = {
    "observer": "Security Reviewer",
    "content": "Found potential SQL injection in query builder",
    "severity": "critical",
    "source_type": "file",
    "source_ref": "src/database/query.py:45",
    "metadata": {"category": "security", "cwe": "CWE-89"},
}
OBSERVATION_KEYS = {
    "id", "observer", "content", "severity", "status", "created_at", "acknowledged_at",
    "resolved_at", "metadata", "source_type", "source_ref",
}  # fmt: skip


@pytest.fixture
def store(clock: FixedClock) -> Any:
    with Store(clock=clock) as opened:
        yield opened


@pytest.fixture
def tool(store: Store) -> ObservationsTool:
    return ObservationsTool(store, project="demo", session_id="s1")


def create(tool: ObservationsTool, *items: dict[str, Any]) -> list[str]:
    response = tool({"operation": "create_batch", "observations": list(items)})
    assert response["status"] == "created", response
    return [o["id"] for o in response["observations"]]


def item(content: str, severity: str = "medium", observer: str = "Quality") -> dict[str, Any]:
    return {"observer": observer, "content": content, "severity": severity}


def test_create_batch_answers_in_the_tool_shape(tool: ObservationsTool) -> None:
    response = tool({"operation": "create_batch", "observations": [FULL_OBSERVATION]})
    assert response["status"] == "created"
    assert response["count"] == 1
    assert response["by_severity"] == {"critical": 1}
    assert response["by_status"] == {"open": 1}
    [stored] = response["observations"]
    assert set(stored) >= OBSERVATION_KEYS
    assert stored["status"] == "open" and len(stored["id"]) == 32
    assert stored["metadata"] == {"category": "security", "cwe": "CWE-89"}
    assert stored["category"] == "security"
    assert stored["created_at"] == "2026-01-01T00:00:00+00:00"
    assert stored["acknowledged_at"] is None and stored["resolved_at"] is None
    assert stored["occurrences"] == 1


def test_create_batch_counts_repeats_instead_of_adding_rows(tool: ObservationsTool) -> None:
    first = tool({"operation": "create_batch", "observations": [FULL_OBSERVATION]})
    again = tool({"operation": "create_batch", "observations": [FULL_OBSERVATION, item("new")]})
    assert (again["new"], again["repeated"]) == (1, 1)
    assert again["observations"][0]["id"] == first["observations"][0]["id"]
    assert again["observations"][0]["occurrences"] == 2
    assert tool({"operation": "list"})["count"] == 2


def test_list_filters_sorts_and_limits(tool: ObservationsTool, clock: FixedClock) -> None:
    create(tool, item("a", "low"), item("b", "critical", "Security Reviewer"))
    clock.advance(1)
    create(tool, item("c", "high"), item("d", "info"))
    clock.advance(1)
    [resolved] = create(tool, item("e", "high"))
    tool({"operation": "resolve", "observation_id": resolved})

    everything = tool({"operation": "list"})
    assert [o["content"] for o in everything["observations"]] == ["b", "c", "e", "a", "d"]
    assert everything["by_severity"] == {"critical": 1, "high": 2, "low": 1, "info": 1}
    assert list(everything["by_severity"]) == ["critical", "high", "low", "info"]
    assert everything["by_status"] == {"open": 4, "resolved": 1}
    assert everything["by_observer"] == {"Quality": 4, "Security Reviewer": 1}

    response = tool(
        {
            "operation": "list",
            "filters": {"status": "open", "severity": ["critical", "high"]},
            "sort_by": "severity",
            "limit": 50,
        }
    )
    assert response["status"] == "ok"
    assert [o["content"] for o in response["observations"]] == ["b", "c"]
    assert response["count"] == 2
    assert response["by_observer"] == {"Quality": 1, "Security Reviewer": 1}

    newest = tool({"operation": "list", "sort_by": "created_at", "limit": 2})
    assert [o["content"] for o in newest["observations"]] == ["e", "d"]
    assert newest["count"] == 5  # counts cover every match, not only the page
    only = tool({"operation": "list", "filters": {"observer": "Security Reviewer"}})
    assert [o["content"] for o in only["observations"]] == ["b"]


def test_get_acknowledge_resolve_clear(tool: ObservationsTool) -> None:
    one, two = create(tool, item("a"), item("b"))
    got = tool({"operation": "get", "ids": [two, one[:6]]})
    assert got["status"] == "ok" and [o["content"] for o in got["observations"]] == ["b", "a"]
    assert tool({"operation": "get", "observation_id": one})["count"] == 1

    acked = tool({"operation": "acknowledge", "observation_id": one})
    assert acked["status"] == "acknowledged" and acked["count"] == 1
    assert acked["observations"][0]["status"] == "acknowledged"
    assert acked["observations"][0]["acknowledged_at"] == "2026-01-01T00:00:00+00:00"

    resolved = tool(
        {"operation": "resolve", "observation_id": one, "resolution_note": "Fixed in commit abc123"}
    )
    assert resolved["status"] == "resolved"
    assert resolved["observations"][0]["resolution_note"] == "Fixed in commit abc123"
    assert tool({"operation": "resolve", "observation_id": two})["observations"][0]["status"] == (
        "resolved"
    )
    cleared = tool({"operation": "clear_resolved"})
    assert cleared["status"] == "cleared" and cleared["count"] == 2
    assert sorted(cleared["ids"]) == sorted([one, two])
    assert tool({"operation": "list"})["count"] == 0


def test_each_project_sees_only_its_own(store: Store, tool: ObservationsTool) -> None:
    [mine] = create(tool, item("a"))
    other = ObservationsTool(store, project="elsewhere")
    assert other({"operation": "list"})["count"] == 0
    refused = other({"operation": "acknowledge", "observation_id": mine})
    assert refused["status"] == "error" and "elsewhere" in refused["error"]


def stored_state(store: Store) -> tuple[object, ...]:
    journals = tuple(
        (p.name, p.read_bytes()) for p in sorted((store.home / "journals").rglob("*.jsonl"))
    )
    return journals, store.index.table_rows("findings")


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        ("list", "request"),
        ({}, "operation"),
        ({"operation": "delete"}, "operation"),
        ({"operation": "list", "filter": {}}, "filter"),
        ({"operation": "acknowledge"}, "observation_id"),
        ({"operation": "acknowledge", "observation_id": 7}, "observation_id"),
        ({"operation": "acknowledge", "observation_id": "f" * 32}, "observation_id"),
        ({"operation": "resolve", "observation_id": "zzzz"}, "observation_id"),
        (
            {"operation": "resolve", "observation_id": "OPEN", "resolution_note": 3},
            "resolution_note",
        ),
        ({"operation": "get", "ids": "abc"}, "ids"),
        ({"operation": "get", "ids": ["OPEN", "nope"]}, "ids[1]"),
        ({"operation": "create_batch"}, "observations"),
        ({"operation": "create_batch", "observations": {"a": 1}}, "observations"),
        ({"operation": "create_batch", "observations": ["text"]}, "observations[0]"),
        (
            {
                "operation": "create_batch",
                "observations": [{"observer": "x", "content": "y", "severity": "urgent"}],
            },
            "observations[0].severity",
        ),
        (
            {
                "operation": "create_batch",
                "observations": [{"observer": "x", "content": "y", "severity": 5}],
            },
            "observations[0].severity",
        ),
        (
            {
                "operation": "create_batch",
                "observations": [{"observer": "x", "content": "y"}, {"observer": "x"}],
            },
            "observations[1].content",
        ),
        (
            {
                "operation": "create_batch",
                "observations": [{"observer": "x", "content": "y", "source_type": "disk"}],
            },
            "observations[0].source_type",
        ),
        (
            {
                "operation": "create_batch",
                "observations": [{"observer": "x", "content": "y", "metadata": []}],
            },
            "observations[0].metadata",
        ),
        (
            {
                "operation": "create_batch",
                "observations": [{"observer": "x", "content": "y", "status": "resolved"}],
            },
            "observations[0].status",
        ),
        ({"operation": "list", "filters": ["open"]}, "filters"),
        ({"operation": "list", "filters": {"status": "closed"}}, "filters.status"),
        ({"operation": "list", "filters": {"severity": ["high", 3]}}, "filters.severity"),
        ({"operation": "list", "filters": {"colour": "red"}}, "filters.colour"),
        ({"operation": "list", "sort_by": "name"}, "sort_by"),
        ({"operation": "list", "limit": "10"}, "limit"),
        ({"operation": "list", "limit": -1}, "limit"),
        ({"operation": "list", "limit": True}, "limit"),
        ({"operation": "list", "limit": 2**63}, "limit"),
    ],
)
def test_bad_requests_name_the_field_and_touch_nothing(
    store: Store, tool: ObservationsTool, request_: Any, field: str
) -> None:
    [open_id] = create(tool, item("an open one"))
    [resolved_id] = create(tool, item("a resolved one"))
    tool({"operation": "resolve", "observation_id": resolved_id})
    request_ = _with_ids(request_, {"OPEN": open_id})
    before = stored_state(store)
    response = tool(request_)
    assert response["status"] == "error", response
    assert response["field"] == field
    assert response["error"].startswith(f"{field}: ")
    assert stored_state(store) == before


def test_acknowledging_a_resolved_observation_is_refused(tool: ObservationsTool) -> None:
    [done] = create(tool, item("done"))
    tool({"operation": "resolve", "observation_id": done})
    response = tool({"operation": "acknowledge", "observation_id": done})
    assert response == {
        "status": "error",
        "error": f"observation_id: observation {done} is resolved; only open ones can be acknowledged",
        "field": "observation_id",
    }


def _with_ids(request: Any, ids: dict[str, str]) -> Any:
    if isinstance(request, dict):
        return {k: _with_ids(v, ids) for k, v in request.items()}
    if isinstance(request, list):
        return [_with_ids(v, ids) for v in request]
    return ids.get(request, request) if isinstance(request, str) else request


def test_nothing_written_when_nothing_changes(store: Store, tool: ObservationsTool) -> None:
    [one] = create(tool, item("a"))
    tool({"operation": "acknowledge", "observation_id": one})
    before = stored_state(store)
    tool({"operation": "acknowledge", "observation_id": one})
    tool({"operation": "list"})
    tool({"operation": "clear_resolved"})
    assert stored_state(store) == before


def test_the_tool_is_usable_with_no_session(store: Store, tmp_path: Path) -> None:
    tool = ObservationsTool(store, project="demo")
    create(tool, item("made from the command line"))
    assert (store.home / "journals" / "demo" / "_manual.jsonl").exists()
