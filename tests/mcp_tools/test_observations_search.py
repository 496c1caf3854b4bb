"""`onlooker mcp` over stdio: the tool list, observations, search and get_observations."""

from __future__ import annotations

from typing import Any

from mcp_harness import McpServer

from onlooker import FixedClock
from onlooker.store import ObservationsTool, Store

TIMES = ("created_at", "last_seen_at", "acknowledged_at", "resolved_at", "id")


def finding(content: str, **extra: Any) -> dict[str, Any]:
    return {"observer": "Security Reviewer", "content": content, **extra}


def without_times(answer: dict[str, Any]) -> dict[str, Any]:
    plain = {k: v for k, v in answer.items() if k != "observations"}
    plain["observations"] = [
        {k: v for k, v in o.items() if k not in TIMES} for o in answer["observations"]
    ]
    return plain


def test_lists_the_memory_and_observation_tools_with_schemas_and_hints(server: McpServer) -> None:
    tools = {tool.name: tool for tool in server.tools()}
    assert sorted(n for n in tools if not n.startswith("observer_")) == [
        "get_observations",
        "observations",
        "read",
        "search",
    ]  # the observer tools: test_observer_tools.py
    assert tools["search"].input_schema["required"] == ["query"]
    ids = tools["get_observations"].input_schema["properties"]["ids"]
    assert (ids["minItems"], ids["maxItems"]) == (1, 20)
    assert tools["read"].input_schema["properties"]["startLine"]["minimum"] == 1
    for tool in tools.values():
        assert tool.description and len(tool.description) > 80
        assert tool.annotations is not None
    assert tools["observations"].annotations.read_only_hint is False
    assert tools["search"].annotations.read_only_hint is True


def test_observations_answers_as_the_store_tool_does(server: McpServer, tmp_path: Any) -> None:
    request = {
        "operation": "create_batch",
        "observations": [
            finding(
                "Path traversal in the upload handler",
                severity="high",
                source_ref="src/upload.py:40",
            ),
            finding("Unchecked return value in the retry loop", severity="low"),
        ],
    }
    over_mcp = server.data("observations", request)
    with Store(tmp_path / "direct", clock=FixedClock()) as store:
        direct = ObservationsTool(store, project=server.project)(request)
    assert without_times(over_mcp) == without_times(direct)
    assert {o["project"] for o in over_mcp["observations"]} == {server.project}

    first = over_mcp["observations"][0]["id"]
    acknowledged = server.data(
        "observations", {"operation": "acknowledge", "observation_id": first}
    )
    assert acknowledged["observations"][0]["status"] == "acknowledged"
    resolved = server.data(
        "observations",
        {
            "operation": "resolve",
            "observation_id": first[:8],
            "resolution_note": "paths normalised",
        },
    )
    assert resolved["observations"][0]["resolution_note"] == "paths normalised"
    listed = server.data("observations", {"operation": "list", "filters": {"status": "resolved"}})
    assert [o["id"] for o in listed["observations"]] == [first]


def test_observations_refuses_bad_requests_naming_the_field(server: McpServer) -> None:
    assert server.refusal("observations", {"operation": "delete_all"})["field"] == "operation"
    assert server.refusal("observations", {})["field"] == "operation"
    missing = server.refusal(
        "observations", {"operation": "create_batch", "observations": [{"observer": "x"}]}
    )
    assert missing["field"] == "observations[0].content"
    unknown = server.refusal("observations", {"operation": "list", "colour": "red"})
    assert unknown["field"] == "colour"
    stranger = server.refusal(
        "observations", {"operation": "acknowledge", "observation_id": "ffff0000"}
    )
    assert "matches no observation" in stranger["error"]


def test_search_finds_findings_by_text_with_filters(server: McpServer) -> None:
    server.data(
        "observations",
        {
            "operation": "create_batch",
            "observations": [
                finding(
                    "SQL injection in the report query builder",
                    source_ref="src/reports/query.py:12",
                ),
                finding(
                    "SQL injection risk in the admin search", source_ref="src/admin/search.py:88"
                ),
            ],
        },
    )
    with Store(server.home) as store:  # another project, written beside the running server
        ObservationsTool(store, project="billing")(
            {"operation": "create_batch", "observations": [finding("SQL injection in invoices")]}
        )
    assert server.data("search", {"query": "sql injection"})["count"] == 2  # this project's
    everything = server.data("search", {"query": "sql injection", "all_projects": True})
    assert everything["count"] == 3
    hit = everything["results"][0]
    assert set(hit) >= {"id", "kind", "title", "project", "timestamp"}
    assert hit["kind"] == "observation"

    billing = server.data("search", {"query": "injection", "projects": ["billing"]})
    assert [r["project"] for r in billing["results"]] == ["billing"]
    by_file = server.data("search", {"query": "injection", "files": ["admin/search.py"]})
    assert [r["title"] for r in by_file["results"]] == ["SQL injection risk in the admin search"]
    assert server.data("search", {"query": "injection", "limit": 1})["count"] == 1
    assert server.data("search", {"query": "injection", "after": "2999-01-01"})["count"] == 0
    assert (
        server.data("search", {"query": "injection", "before": "2000-01-01T00:00:00Z"})["count"]
        == 0
    )
    assert server.data("search", {"query": "nothing-like-this"})["results"] == []


def test_search_refuses_bad_arguments(server: McpServer) -> None:
    cases = [
        ({}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "x", "mode": "fuzzy"}, "mode"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "limit": 51}, "limit"),
        ({"query": "x", "limit": "5"}, "limit"),
        ({"query": "x", "after": "last tuesday"}, "after"),
        ({"query": "x", "after": "2026-02-01", "before": "2026-01-01"}, "before"),
        ({"query": "x", "projects": "demo"}, "projects"),
        ({"query": "x", "files": [3]}, "files[0]"),
        ({"query": "x", "sort": "new"}, "sort"),
    ]
    for arguments, field in cases:
        refused = server.refusal("search", arguments)
        assert refused["field"] == field, (arguments, refused)
        assert refused["error"].startswith("search: ")


def test_get_observations_takes_one_to_twenty_ids(server: McpServer) -> None:
    created = server.data(
        "observations",
        {
            "operation": "create_batch",
            "observations": [finding(f"Slow query number {n}") for n in range(21)],
        },
    )
    ids = [o["id"] for o in created["observations"]]
    one = server.data("get_observations", {"ids": ids[:1]})
    assert one["observations"][0]["content"] == "Slow query number 0"
    assert one["observations"][0]["kind"] == "observation"
    twenty = server.data("get_observations", {"ids": ids[:20]})
    assert [o["id"] for o in twenty["observations"]] == ids[:20]
    partly = server.data("get_observations", {"ids": [ids[0], "0" * 32]})
    assert partly["missing"] == ["0" * 32] and partly["count"] == 1

    none = server.refusal("get_observations", {"ids": []})
    assert none["field"] == "ids" and "at least 1" in none["error"]
    too_many = server.refusal("get_observations", {"ids": ids})
    assert too_many["field"] == "ids" and "at most 20" in too_many["error"]
    assert server.refusal("get_observations", {})["field"] == "ids"
    assert server.refusal("get_observations", {"ids": "abc"})["field"] == "ids"
    assert server.refusal("get_observations", {"ids": [1.5]})["field"] == "ids[0]"
    assert server.refusal("get_observations", {"ids": [""]})["field"] == "ids[0]"


def test_an_unknown_tool_is_refused(server: McpServer) -> None:
    result = server.call("delete_everything", {})
    assert result.is_error
    assert "unknown tool" in result.content[0].text


def test_out_of_range_and_unicode_arguments_are_refused_not_raised(server: McpServer) -> None:
    largest = 2**63 - 1
    for too_big in (2**63, 10**30):
        refused = server.refusal("get_observations", {"ids": [too_big]})
        assert refused["field"] == "ids[0]" and str(largest) in refused["error"]
    assert server.refusal("get_observations", {"ids": [0]})["field"] == "ids[0]"
    # "²" and digits past SQLite's range are no memory ids: looked up as finding ids, not found
    digits = ["\u00b2", str(2**63), "9" * 5000]
    assert server.data("get_observations", {"ids": digits})["missing"] == digits
    assert server.data("get_observations", {"ids": [largest]})["missing"] == [largest]

    for field, when in (
        ("after", "9999-12-31T23:59:59-05:00"),
        ("before", "0001-01-01T00:00:00+05:00"),
    ):
        refused = server.refusal("search", {"query": "x", field: when})
        assert refused["field"] == field and "out of range" in refused["error"]
    edges = {"after": "0001-01-01", "before": "9999-12-31T23:59:59.999999Z"}
    assert server.data("search", {"query": "x", **edges})["count"] == 0

    huge = server.refusal("observations", {"operation": "list", "limit": 10**30})
    assert huge["field"] == "limit" and str(largest) in huge["error"]
    assert server.data("observations", {"operation": "list", "limit": largest})["status"] == "ok"
    assert server.refusal("read", {"path": "x.jsonl", "startLine": 10**30})["field"] == "startLine"


def test_published_schemas_bound_ids_limits_and_lines(server: McpServer) -> None:
    tools = {tool.name: tool.input_schema["properties"] for tool in server.tools()}
    bounds = [
        tools["get_observations"]["ids"]["items"],
        tools["observations"]["limit"],
        tools["read"]["startLine"],
        tools["read"]["endLine"],
    ]
    assert all(bound["maximum"] == 2**63 - 1 for bound in bounds)


def test_expired_observations_are_listed_apart_from_resolved_ones(server: McpServer) -> None:
    made = server.data("observations", {"operation": "create_batch", "observations": [
        finding("Same failing call four times", severity="high"),
    ]})["observations"]  # fmt: skip
    (expired_id,) = (o["id"] for o in made)
    with Store(server.home) as store:  # what a session's end does to its episodes
        store.expire({expired_id: "the session ended"}, project=server.project, session_id="s1")
    listed = server.data("observations", {"operation": "list", "filters": {"status": "expired"}})
    assert [(o["id"], o["status"], o["resolution_note"]) for o in listed["observations"]] == [
        (expired_id, "expired", "the session ended")
    ]
    resolved = server.data("observations", {"operation": "list", "filters": {"status": "resolved"}})
    assert expired_id not in {o["id"] for o in resolved["observations"]}
    schema = {t.name: t for t in server.tools()}["observations"].input_schema
    assert "expired" in schema["properties"]["filters"]["description"]
