"""`onlooker memory search|show|forget` on the command line, with --json everywhere; forget asks
first, and what it forgets stays forgotten after `onlooker reindex`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from onlooker.cli import build_group
from onlooker.memory._memories import Extracted, Memories
from onlooker.store import Store, project_for
from onlooker.store.identity import display_name


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, onlooker_home: Path) -> Path:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    with Store(onlooker_home) as store:
        memories = Memories(store)
        memories.remember([Extracted("Login needs a fresh token", "Refresh the session before /login.",
                                     datetime(2026, 5, 1, tzinfo=UTC), ("/shop/auth.py",)),
                           Extracted("Use make test", "make test runs lint and tests.",
                                     datetime(2026, 5, 3, tzinfo=UTC))],
                          project=project_for(root), session_id="s1")  # fmt: skip
        memories.remember([Extracted("Blog login page", "The blog has no login.", datetime(2026, 5, 2, tzinfo=UTC))],
                          project=project_for(tmp_path / "blog"), session_id="s2")  # fmt: skip
    return root


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(build_group(), list(args), input=input, catch_exceptions=False)


def as_json(*args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_search_defaults_to_the_current_project(project: Path) -> None:
    found = as_json("memory", "search", "login", "--mode", "text")["memories"]
    assert [m["title"] for m in found] == ["Login needs a fresh token"]
    assert set(found[0]) == {"id", "title", "project", "timestamp"}
    every = as_json("memory", "search", "login", "--mode", "text", "--all-projects")["memories"]
    assert {display_name(m["project"]) for m in every} == {"shop", "blog"}
    assert {m["project"] for m in every} == {
        project_for(project),
        project_for(project.parent / "blog"),
    }
    assert (
        as_json("memory", "search", "login", "--mode", "text", "--after", "2026-05-02")["memories"]
        == []
    )
    assert (
        as_json("memory", "search", "login make", "--mode", "text", "--file", "auth.py")[
            "memories"
        ][0]["id"]
        == 1
    )
    plain = run("memory", "search", "login", "--mode", "text")
    assert (
        plain.exit_code == 0
        and "#1  2026-05-01 00:00  [shop]  Login needs a fresh token" in plain.output
    )


def test_show_in_full_and_missing_ids(project: Path) -> None:
    (memory,) = as_json("memory", "show", "1")["memories"]
    assert memory["content"] == "Refresh the session before /login." and memory["files"] == [
        "/shop/auth.py"
    ]
    missing = run("memory", "show", "1", "42")
    assert missing.exit_code == 2 and "no memory with id 42" in missing.stderr
    assert "Refresh the session" in missing.stdout


def test_forget_asks_and_stays_forgotten_after_reindex(project: Path) -> None:
    declined = run("memory", "forget", "1", input="n\n")
    assert declined.exit_code == 1 and "Login needs a fresh token" in declined.output
    assert as_json("memory", "show", "1")["memories"]
    done = run("memory", "forget", "1", input="y\n")
    assert done.exit_code == 0 and "Forgot 1 memory." in done.output
    assert run("memory", "show", "1").exit_code == 2
    assert as_json("memory", "forget", "2", "--yes") == {"forgotten": [2]}
    assert run("memory", "forget", "2", "--yes").exit_code == 2  # already gone
    assert run("reindex").exit_code == 0
    assert [
        m["id"]
        for m in as_json("memory", "search", "login make blog", "--mode", "text", "--all-projects")[
            "memories"
        ]
    ] == [3]


def test_bad_arguments_are_named(project: Path) -> None:
    bad = run("memory", "search", "x", "--mode", "fuzzy")
    assert bad.exit_code == 2 and "--mode" in bad.output
    bad_date = run("memory", "search", "x", "--after", "May 1st")
    assert bad_date.exit_code == 2 and "--after" in bad_date.output


def test_forget_by_query_or_by_session(project: Path) -> None:
    assert run("memory", "forget", "--yes").exit_code == 2  # nothing named
    by_query = as_json("memory", "forget", "--query", "login", "--yes")
    assert by_query == {"forgotten": [1]}  # the current project's only: the blog's stays
    assert as_json("memory", "show", "3")["memories"]
    assert as_json("memory", "forget", "--session", "s1", "--yes") == {"forgotten": [2]}
    assert run("memory", "forget", "--session", "s1", "--yes").exit_code == 2  # none left
    assert run("reindex").exit_code == 0
    assert as_json("memory", "search", "login make", "--mode", "text")["memories"] == []


def test_edit_corrects_a_memory_for_search_and_after_reindex(project: Path) -> None:
    edited = as_json("memory", "edit", "2", "--content", "make check runs lint and tests.")
    assert edited["memory"]["title"] == "Use make test"
    assert edited["memory"]["content"] == "make check runs lint and tests."
    assert [
        m["id"] for m in as_json("memory", "search", "check", "--mode", "text")["memories"]
    ] == [2]
    assert as_json("memory", "search", "runs lint", "--mode", "text")["memories"]
    assert run("reindex").exit_code == 0
    (memory,) = as_json("memory", "show", "2")["memories"]
    assert memory["content"] == "make check runs lint and tests."
    assert run("memory", "edit", "42", "--title", "x").exit_code == 2


def test_a_pinned_memory_comes_first_whatever_its_age(project: Path, onlooker_home: Path) -> None:
    from onlooker.memory import MemorySettings, session_start_digest

    key = project_for(project)

    def digest() -> list[str]:
        with Store(onlooker_home) as store:
            text = session_start_digest(
                Memories(store), project=key, session_id="new", source="startup",
                settings=MemorySettings(recency_days=7), now=datetime(2026, 5, 20, tzinfo=UTC),
            )  # fmt: skip
        return [line for line in text.splitlines() if line.startswith("- ")]

    assert digest() == []  # both are older than recencyDays
    assert as_json("memory", "pin", "1") == {"memory": 1, "pinned": True}
    assert digest() == ["- Login needs a fresh token: Refresh the session before /login."]
    assert run("reindex").exit_code == 0
    assert len(digest()) == 1  # the pin is journaled
    as_json("memory", "pin", "1", "--unpin")
    assert digest() == []
