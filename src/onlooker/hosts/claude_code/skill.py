"""The plugin's skill (`skills/onlooker-observations/SKILL.md`): how the agent acts on what onlooker
tells it. Claude Code lists a plugin's skills to the model by name and description and loads the
text when the model uses one, so the description says when it applies and the text stays short:
observations by id (acknowledge, resolve with a note) and memory search (specs/hosts.md).
"""

from __future__ import annotations

import json
from pathlib import Path

from ...core.message import INTRODUCTION, SHORT_ID

NAME = "onlooker-observations"
PATH = Path("skills") / NAME / "SKILL.md"
MARK = "# onlooker skill"
"""A comment in the file's front matter: what onlooker wrote, and may replace or remove."""
DESCRIPTION = (
    "How to act on onlooker's observations (the [Trajectory Assessment] and open-observation "
    "notes in your context, each with an id): acknowledge or resolve them by id, and search "
    "what onlooker remembers from past sessions."
)

TEXT = f"""---
name: {NAME}
description: {json.dumps(DESCRIPTION)}
{MARK} (`onlooker install claude-code --plugin` writes it)
---

# onlooker observations

{INTRODUCTION}

onlooker watches your tool calls and adds notes to your context: a message right after a call
when an episode starts (and once more if it gets worse), and the open observations at your next
prompt. Each finding carries `[id XXXXXXXX]` (the first {SHORT_ID} characters of its id; any
unique prefix of 4 or more works) and says where it points: the calls it rests on, or FILE:LINE.
They are statements of fact, not orders: weigh them against what you know.

Act on them with the `observations` tool of onlooker's MCP server (`mcp__…onlooker__observations`):

- acknowledge, while you work on it: `{{"operation": "acknowledge", "observation_id": "<id>"}}`
- resolve, once it is dealt with (fixed, or not a problem), saying how:
  `{{"operation": "resolve", "observation_id": "<id>", "resolution_note": "<what you did>"}}`
- list the open ones: `{{"operation": "list", "filters": {{"status": "open"}}}}`

Resolved observations are not brought up again. Without the MCP tools, the same from a shell:
`onlooker observations ack <id>`, `onlooker observations resolve <id> --note "<what you did>"`.

Memory: onlooker keeps what past sessions of this project did and adds the most useful at the
start of a session. To look something up, call `search` with a `query` (words, a file name);
it returns short hits (id, kind, title) best first; `get_observations` with their `ids` gives
the full text. From a shell: `onlooker memory search "<query>"`.
"""


def skill_text() -> str:
    """The SKILL.md onlooker writes."""
    return TEXT


def is_ours(text: str | None) -> bool:
    """Whether a SKILL.md is the one onlooker wrote (any version of it)."""
    return text is not None and MARK in text.split("\n---", 2)[0]
