"""What the viewer can change, through the same store operations as the CLI and the MCP tools,
with the same ids (specs/serve.md, Act). Each change is journaled by the store as it is there, in
the project's manual journal (the viewer acts outside any session), so the agent hears of it at
its next hook: a resolved finding leaves the next-turn summary, a forgotten memory is no longer
injected, an accepted improvement is in AGENTS.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import BadViewerRequest, UnknownFinding
from ..memory._memories import Memories
from ..store import Store
from ..store.home import JOURNALS
from ..store.identity import project_root
from ..store.memory_records import Memory
from .reads import finding_row, plain_name

NOTE_LIMIT = 20_000
"""Characters of a resolution note, as the observations tool allows."""
MEMORY_LIMIT = 20_000
"""Characters of a memory's title or content typed on the page."""


def acknowledge(store: Store, finding_id: str) -> dict[str, Any]:
    full, project = _finding(store, finding_id)
    return {
        "status": "acknowledged",
        "finding": finding_row(store.acknowledge(full, project=project)),
    }


def resolve(store: Store, finding_id: str, note: str) -> dict[str, Any]:
    if len(note) > NOTE_LIMIT:
        raise BadViewerRequest(f"note: at most {NOTE_LIMIT} characters, not {len(note)}")
    full, project = _finding(store, finding_id)
    done = store.resolve(full, note.strip() or None, project=project)
    return {"status": "resolved", "finding": finding_row(done)}


def forget(store: Store, memory_id: int) -> dict[str, Any]:
    gone = Memories(store).forget([memory_id])
    if not gone:
        raise BadViewerRequest(f"id: no memory {memory_id}")
    return {"status": "forgotten", "ids": [m.id for m in gone]}


def edit_memory(store: Store, memory_id: int, body: dict[str, Any]) -> dict[str, Any]:
    """Correct a memory's title and content, as `onlooker memory edit ID --title --content`
    does (`Memories.edit`: redacted, journaled; reindex keeps the correction)."""
    memories = Memories(store)
    memory = _memory(memories, memory_id)
    title = _memory_text(body, "title", memory.title)
    content = _memory_text(body, "content", memory.content)
    changed = memories.edit(memory, title=title, content=content)
    return {"status": "edited", "memory": changed.to_dict()}


def pin_memory(store: Store, memory_id: int, body: dict[str, Any]) -> dict[str, Any]:
    """Pin a memory (first in every session-start digest of its project) or unpin it
    (`{"pinned": false}`), as `onlooker memory pin ID [--unpin]` does."""
    pinned = body.get("pinned", True)
    if not isinstance(pinned, bool):
        raise BadViewerRequest(f"pinned: true or false, not {pinned!r}")
    memories = Memories(store)
    memories.pin(_memory(memories, memory_id), pinned=pinned)
    return {"status": "pinned" if pinned else "unpinned", "memory": memory_id, "pinned": pinned}


def _memory(memories: Memories, memory_id: int) -> Memory:
    found = memories.get([memory_id])
    if not found:
        raise BadViewerRequest(f"id: no memory {memory_id}")
    return found[0]


def _memory_text(body: dict[str, Any], name: str, current: str) -> str:
    value = body.get(name)
    if value is None:
        return current
    if not isinstance(value, str) or not value.strip():
        raise BadViewerRequest(f"{name}: a memory needs a {name} (text, not empty)")
    if len(value) > MEMORY_LIMIT:
        raise BadViewerRequest(f"{name}: at most {MEMORY_LIMIT} characters, not {len(value)}")
    return value.strip()


def improvements(store: Store, project: str, action: str, body: dict[str, Any]) -> dict[str, Any]:
    """Run one observer command (`accept N`, `reject N|pattern`, `steer text`,
    `rollback [agent]`) for a project, as `onlooker observer …` does in the project's folder."""
    commands = _commands(store, project)
    if action == "accept":
        answer = commands.accept(_number(body))
    elif action == "reject":
        answer = commands.reject(str(body.get("which", "")))
    elif action == "steer":
        answer = commands.steer(str(body.get("text", "")))
    elif action == "rollback":
        answer = commands.rollback(str(body.get("agent", "")))
    else:
        raise BadViewerRequest(f"action: one of accept, reject, steer, rollback, not {action!r}")
    return {"status": "ok", "text": answer.text, **answer.data}


def _commands(store: Store, project: str) -> Any:
    from ..config import load_project
    from ..scoring import ObserverCommands

    root = project_folder(store, project)
    config = load_project(root)
    return ObserverCommands(store, project, config.root, config.scoring)


def project_folder(store: Store, project: str) -> Path:
    """The folder of a project key: the working directory its newest session started in (the
    store keeps keys, not folders)."""
    folder = store.home / JOURNALS / project
    if not plain_name(project) or not folder.is_dir():
        raise BadViewerRequest(f"project: no project {project!r} in this data home")
    journals = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in journals:
        with path.open("rb") as file:
            for line in file:
                if line.startswith(b'{"kind":"session_started"'):
                    cwd = json.loads(line).get("cwd")
                    if cwd and Path(cwd).is_dir():
                        return project_root(cwd)
                    break
    raise BadViewerRequest(f"project: no session of {project!r} names a folder that still exists")


def _finding(store: Store, finding_id: str) -> tuple[str, str]:
    try:
        full = store.find_id(finding_id)
    except UnknownFinding as exc:
        raise BadViewerRequest(f"id: {exc}") from None
    found = store.get((full,))
    return full, str(found[0].finding.project)


def _number(body: dict[str, Any]) -> int:
    number = body.get("number")
    if not isinstance(number, int) or isinstance(number, bool):
        raise BadViewerRequest(
            "number: the pending improvement's number (1, 2, …), as `observer suggest` lists"
        )
    return number
