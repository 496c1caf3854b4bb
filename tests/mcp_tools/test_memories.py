"""`onlooker mcp` over stdio: search and get_observations over memories, beside findings."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from mcp_harness import McpServer, running_server

from onlooker.memory import Memories
from onlooker.memory._memories import Extracted
from onlooker.memory._vector_search import memory_vectors
from onlooker.store import ObservationsTool, Store

DAY = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def remember(server: McpServer) -> list[int]:
    """Memories of two projects written into the running server's data home."""
    with Store(server.home) as store:
        memories = Memories(store)
        auth = memories.remember(
            [
                Extracted(
                    "Token refresh race",
                    "The auth middleware refreshed tokens twice under load; a lock in "
                    "src/auth/refresh.py fixed it.",
                    DAY,
                    ("src/auth/refresh.py",),
                ),
                Extracted(
                    "Test database", "Integration tests need the postgres container up.", DAY
                ),
            ],
            project=server.project,
            session_id="s-1",
        )
        billing = memories.remember(
            [
                Extracted(
                    "Invoice rounding",
                    "Invoice totals round half-even since the refresh of the tax rules.",
                    datetime(2026, 5, 1, tzinfo=UTC),
                )
            ],
            project="billing",
            session_id="s-2",
        )
        vectors = memory_vectors(store)
        assert vectors is not None, "the embeddings extra is part of the dev install"
        vectors.embed([m.id for m in (*auth, *billing)])
        ObservationsTool(store, project=server.project)(
            {
                "operation": "create_batch",
                "observations": [
                    {"observer": "review", "content": "Token refresh has no retry limit"}
                ],
            }
        )
    return [m.id for m in (*auth, *billing)]


def test_search_returns_memories_and_observations(server: McpServer) -> None:
    ids = remember(server)
    found = server.data("search", {"query": "token refresh"})
    kinds = {(hit["kind"], hit["title"]) for hit in found["results"]}
    assert ("memory", "Token refresh race") in kinds
    assert ("observation", "Token refresh has no retry limit") in kinds
    assert found["searched"] == {"memories": "both", "observations": "text"}
    memory_hit = next(hit for hit in found["results"] if hit["kind"] == "memory")
    assert memory_hit["id"] == ids[0] and memory_hit["project"] == server.project
    assert memory_hit["timestamp"].startswith("2026-03-10")

    only_memories = server.data("search", {"query": "refresh", "kinds": ["memory"], "mode": "text"})
    assert {hit["kind"] for hit in only_memories["results"]} == {"memory"}
    billing = server.data("search", {"query": "refresh", "projects": ["billing"], "mode": "text"})
    assert [hit["title"] for hit in billing["results"]] == ["Invoice rounding"]
    by_file = server.data(
        "search", {"query": "refresh", "files": ["refresh.py"], "kinds": ["memory"], "mode": "text"}
    )
    assert [hit["title"] for hit in by_file["results"]] == ["Token refresh race"]
    hybrid = server.data(
        "search", {"query": "refresh", "kinds": ["memory"], "projects": [server.project]}
    )
    assert hybrid["results"][0]["title"] == "Token refresh race"
    march = server.data(
        "search",
        {
            "query": "refresh",
            "kinds": ["memory"],
            "mode": "text",
            "after": "2026-03-01",
            "before": "2026-04-01",
        },
    )
    assert [hit["title"] for hit in march["results"]] == ["Token refresh race"]


def test_vector_mode_finds_memories_by_meaning(server: McpServer) -> None:
    remember(server)
    query = {"query": "credentials renewed concurrently", "mode": "vector", "kinds": ["memory"]}
    found = server.data("search", {**query, "limit": 1})
    assert found["searched"] == {"memories": "vector"}
    assert [hit["title"] for hit in found["results"]] == ["Token refresh race"]
    assert server.data("search", {**query, "mode": "text"})["results"] == []


def test_text_only_server_refuses_vector_mode_clearly(tmp_path: Path) -> None:
    with running_server(tmp_path, "--text-only") as text_only:
        remember(text_only)
        refused = text_only.refusal("search", {"query": "token", "mode": "vector"})
        assert refused["field"] == "mode"
        assert "embeddings" in refused["error"]
        found = text_only.data("search", {"query": "token refresh", "all_projects": True})
        assert found["searched"] == {"memories": "text", "observations": "text"}
        titles = {hit["title"] for hit in found["results"]}
        assert titles == {
            "Token refresh race",
            "Invoice rounding",
            "Token refresh has no retry limit",
        }
        here = text_only.data("search", {"query": "token refresh"})  # the current project's only
        assert {hit["title"] for hit in here["results"]} == titles - {"Invoice rounding"}


def test_get_observations_mixes_memory_and_finding_ids(server: McpServer) -> None:
    ids = remember(server)
    finding = server.data("search", {"query": "retry limit", "kinds": ["observation"]})["results"][
        0
    ]
    asked = [ids[1], finding["id"], str(ids[2]), 999_999]
    answer = server.data("get_observations", {"ids": asked})
    assert [item["kind"] for item in answer["observations"]] == ["memory", "observation"]
    assert answer["other_projects"] == [str(ids[2])]  # billing's: given only when asked
    everywhere = server.data("get_observations", {"ids": asked, "all_projects": True})
    assert [o["kind"] for o in everywhere["observations"]] == ["memory", "observation", "memory"]
    first = answer["observations"][0]
    assert (first["title"], first["content"]) == (
        "Test database",
        "Integration tests need the postgres container up.",
    )
    assert answer["observations"][1]["content"] == "Token refresh has no retry limit"
    assert answer["missing"] == [999_999]
    assert first["journal"] == f"journals/{server.project}/s-1.jsonl"
    journal = server.data("read", {"path": first["journal"]})
    assert "Test database" in journal["text"]
