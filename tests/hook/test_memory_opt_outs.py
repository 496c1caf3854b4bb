"""Memory opt-outs are live, through the real `onlooker hook` command and its warm service: a
`.onlooker/no-memory` marker or `memory.enabled: false` made mid-session counts from the next
hook; with `projectOnly: false`, opted-out projects are never injected and other projects'
memories carry their name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hook_runner import answer

from onlooker.memory._memories import Extracted, Memories
from onlooker.store import Store, project_for

HEADER = "# [{}] recent context (conversation-memory)"


def hook(event: str, cwd: Path, session: str, **fields: Any) -> dict[str, Any]:
    return answer({"session_id": session, "transcript_path": f"/tmp/{session}.jsonl",
                   "cwd": str(cwd), "hook_event_name": event, **fields})  # fmt: skip


def context(reply: dict[str, Any]) -> str:
    return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


def read(cwd: Path, session: str, name: str) -> None:
    hook("PostToolUse", cwd, session, tool_name="Read", tool_input={"file_path": f"{cwd}/{name}"},
         tool_response="x", tool_use_id=f"toolu_{session}_{name}")  # fmt: skip


def project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    (root / ".git").mkdir(parents=True)
    return root


def remember(home: Path, root: Path, title: str) -> None:
    with Store(home) as store:
        found = Extracted(title, f"{title}, as noted.", store.clock.now())
        Memories(store).remember([found], project=project_for(root), session_id="earlier")


def pending(home: Path, root: Path, session: str) -> list[str]:
    with Store(home) as store:
        return [p.compressed for p in Memories(store).pending(project_for(root), session)]


def test_a_marker_made_mid_session_counts_from_the_next_hook(
    tmp_path: Path, onlooker_home: Path
) -> None:
    shop = project(tmp_path, "shop")
    remember(onlooker_home, shop, "Deploys go through staging")
    assert "Deploys go through staging" in context(hook("SessionStart", shop, "s1",
                                                        source="startup"))  # fmt: skip
    read(shop, "s1", "a.py")
    assert len(pending(onlooker_home, shop, "s1")) == 1
    (shop / ".onlooker").mkdir()
    (shop / ".onlooker" / "no-memory").touch()  # while the service keeps the session warm
    read(shop, "s1", "b.py")
    assert len(pending(onlooker_home, shop, "s1")) == 1  # nothing more captured
    remember(onlooker_home, shop, "Tokens expire hourly")
    assert context(hook("SessionStart", shop, "s1", source="compact")) == ""
    (shop / ".onlooker" / "no-memory").unlink()  # and back on, as live
    read(shop, "s1", "c.py")
    assert len(pending(onlooker_home, shop, "s1")) == 2


def test_memory_enabled_false_mid_session_counts_from_the_next_hook(
    tmp_path: Path, onlooker_home: Path
) -> None:
    shop = project(tmp_path, "shop")
    (shop / "onlooker.yaml").write_text("memory:\n  enabled: true\n")
    hook("SessionStart", shop, "e1", source="startup")
    read(shop, "e1", "a.py")
    (shop / "onlooker.yaml").write_text("memory:\n  enabled: false\n")
    read(shop, "e1", "b.py")
    assert len(pending(onlooker_home, shop, "e1")) == 1
    remember(onlooker_home, shop, "Deploys go through staging")
    assert context(hook("SessionStart", shop, "e1", source="compact")) == ""


def test_other_projects_are_labeled_and_opted_out_ones_never_injected(
    tmp_path: Path, onlooker_home: Path
) -> None:
    shop, quiet, blog = (project(tmp_path, name) for name in ("shop", "quiet", "blog"))
    (shop / "onlooker.yaml").write_text("memory:\n  projectOnly: false\n")
    remember(onlooker_home, shop, "Shop deploys go through staging")
    remember(onlooker_home, quiet, "Quiet keeps secrets in a vault")
    remember(onlooker_home, blog, "Blog posts need a cover image")
    hook("SessionStart", quiet, "q1", source="startup")  # memory on: shared
    first = context(hook("SessionStart", shop, "s1", source="startup"))
    assert first.startswith(HEADER.format("shop"))
    assert "\n- Shop deploys go through staging: " in first  # its own project: no label
    assert "\n- [blog] Blog posts need a cover image: " in first
    assert "\n- [quiet] Quiet keeps secrets in a vault: " in first

    (quiet / ".onlooker").mkdir()
    (quiet / ".onlooker" / "no-memory").touch()
    read(quiet, "q1", "a.py")  # the next hook of quiet's running session sees the marker
    later = context(hook("SessionStart", shop, "s2", source="startup"))
    assert "Blog posts need a cover image" in later
    assert "Quiet keeps secrets" not in later
