"""The memory digest injected at session start, under a token budget (specs/memory.md):

    # [project-name] recent context (conversation-memory)

    - observation title: content

Each session is told what it was given, so after `compact` or `resume` only memories it has not
seen yet are added; `startup` and `clear` begin with an empty context. A session is never told the
memories it made itself (a resumed one has them in its transcript); with `projectOnly: false`,
projects whose memory is off are left out and other projects' memories carry their name.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from ..store.identity import display_name
from ..store.memory_records import Memory, MemoryFilter
from ._memories import Memories
from .settings import MemorySettings

HEADER = "# [{project}] recent context (conversation-memory)"
#: Sources whose context already holds what earlier session starts injected.
CONTINUED = frozenset({"compact", "resume"})


def estimate_tokens(text: str) -> int:
    """Tokens a text costs, estimated as one per four characters (rounded up)."""
    return math.ceil(len(text) / 4)


def render_digest(
    memories: Sequence[Memory],
    project: str,
    max_tokens: int,
    stale: Mapping[int, Sequence[str]] | None = None,
) -> tuple[str, list[int]]:
    """The digest text and the ids it holds; it stops before the budget is passed, cutting the
    last memory that only partly fits. ('' and [] when not even one fits.) A memory of another
    project (`projectOnly: false`) is labeled with that project's name; a memory with files in
    `stale` says they changed in a later session."""
    text = HEADER.format(project=display_name(project)) + "\n"
    shown: list[int] = []
    for memory in memories:
        label = "" if memory.project == project else f"[{display_name(memory.project)}] "
        line = f"\n- {label}{_one_line(memory.title)}: {_one_line(memory.content)}"
        changed = (stale or {}).get(memory.id)
        if changed:
            names = ", ".join(os.path.basename(p) or p for p in changed[:3])
            line += f" (may be stale: {names} changed in a later session)"
        if estimate_tokens(text + line) <= max_tokens:
            text += line
            shown.append(memory.id)
            continue
        room = max_tokens * 4 - len(text) - 1  # characters left, keeping one for the ellipsis
        if room >= 40:
            text += line[:room].rstrip() + "…"
            shown.append(memory.id)
        break
    return (text, shown) if shown else ("", [])


def session_start_digest(
    memories: Memories,
    *,
    project: str,
    session_id: str,
    source: str,
    settings: MemorySettings,
    now: datetime,
) -> str:
    """What SessionStart adds for this session ('' for nothing), recorded as shown to it."""
    if not settings.enabled or settings.max_observations == 0:
        return ""
    where = MemoryFilter(
        projects=(project,) if settings.project_only else (),
        after=now - timedelta(days=settings.recency_days),
        not_session=session_id,
        opted_in=not settings.project_only,
    )
    continued = source in CONTINUED
    unseen = session_id if continued else ""
    pinned = memories.pinned(where, settings.max_observations, not_shown_to=unseen)
    recent = memories.recent(where, settings.max_observations, not_shown_to=unseen)
    found = list({m.id: m for m in (*pinned, *recent)}.values())[: settings.max_observations]
    stale = {m.id: changed for m in found if (changed := memories.changed_later(m))}
    text, shown = render_digest(found, project, settings.max_tokens, stale)
    if shown or source == "clear":
        memories.mark_shown(session_id, shown, project=project, reset=not continued)
    return text


def _one_line(text: str) -> str:
    return " ".join(text.split())
