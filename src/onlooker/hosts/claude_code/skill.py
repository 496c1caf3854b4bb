"""The plugin's `observations` skill: what the agent reads on acting on onlooker's messages by id,
the same line the first message of a session says (core/message.py, INTRODUCTION)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...core.message import INTRODUCTION, SHORT_ID
from .slash_commands import MARK


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill file of the plugin (`skills/<name>/SKILL.md`)."""

    name: str
    description: str
    body: str

    @property
    def path(self) -> Path:
        return Path("skills") / self.name / "SKILL.md"

    def text(self) -> str:
        return (
            f"---\n{MARK} (`onlooker install claude-code --plugin` writes it)\n"
            f"name: {self.name}\ndescription: {self.description}\n---\n\n{self.body}\n"
        )


OBSERVATIONS_SKILL = Skill(
    "observations",
    "Acknowledge or resolve what onlooker's observers told you, by the id in brackets",
    f"{INTRODUCTION}\n\n"
    "onlooker's observers (Stall, Error Cascade, Drift, reviewers) add a message after a tool "
    "call when an episode starts and once more if it gets worse; each finding carries "
    f"`[id XXXXXXXX]` (the first {SHORT_ID} characters of its id; any unique prefix of 4 or more "
    "works), and says where it points: the calls it rests on, or FILE:LINE. Open ones come back "
    "in `<observations>` at the next prompt.\n\n"
    '- MCP: the `observations` tool, `{"operation": "acknowledge", "observation_id": ID}` '
    'or `{"operation": "resolve", "observation_id": ID, "resolution_note": WHY}`.\n'
    "- Shell: `onlooker observations ack ID`, `onlooker observations resolve ID --note WHY`, "
    "`onlooker observations show ID`.\n\n"
    "Resolve a finding when what it describes is fixed or was intended; acknowledge it when "
    "it is seen and being worked on.",
)
