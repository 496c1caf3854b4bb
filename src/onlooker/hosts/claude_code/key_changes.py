"""What an install changes in a JSON config file, key by key: what `--dry-run` shows, so a look
at `~/.claude.json` shows onlooker's entry and nothing else of the file (account ids, history).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


@dataclass(frozen=True, slots=True)
class KeyChange:
    """A key added (`+`), removed (`-`) or replaced (`~`), with the value it has after (or had)."""

    sign: str
    path: tuple[str | int, ...]
    value: Any

    def line(self) -> str:
        return f"{self.sign} {key_path(self.path)}: {json.dumps(self.value, ensure_ascii=False)}"


def key_changes(before: Any, after: Any, path: tuple[str | int, ...] = ()) -> list[KeyChange]:
    """The keys that differ between two JSON values, as deep as they can be told apart; a list
    that only grew (or only shrank) at its end shows the items added (removed)."""
    if isinstance(before, dict) and isinstance(after, dict):
        changes: list[KeyChange] = []
        for key in [*before, *(k for k in after if k not in before)]:
            if key not in after:
                changes.append(KeyChange("-", (*path, key), before[key]))
            elif key not in before and _holds_only_containers(after[key]):
                changes += key_changes({}, after[key], (*path, key))  # one line per key added
            elif key not in before:
                changes.append(KeyChange("+", (*path, key), after[key]))
            else:
                changes += key_changes(before[key], after[key], (*path, key))
        return changes
    if isinstance(before, list) and isinstance(after, list) and before != after:
        short, long = sorted((before, after), key=len)
        if long[: len(short)] == short:
            sign = "+" if long is after else "-"
            return [KeyChange(sign, (*path, i), long[i]) for i in range(len(short), len(long))]
    return [] if before == after else [KeyChange("~", path, after)]


def _holds_only_containers(value: Any) -> bool:
    """An object whose values are all objects or lists: shown key by key when added."""
    return (
        isinstance(value, dict)
        and bool(value)
        and all(isinstance(v, dict | list) for v in value.values())
    )


def json_key_changes(before: str | None, after: str | None) -> list[KeyChange] | None:
    """`key_changes` of two texts of a JSON file (None: either is not JSON)."""
    try:
        old = json.loads(before) if before else {}
        new = json.loads(after) if after else {}
    except ValueError:
        return None
    return key_changes(old, new)


def key_path(path: tuple[str | int, ...]) -> str:
    """`hooks.PostToolUse[1]`, `projects["/home/me/app"].mcpServers.onlooker`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part, ensure_ascii=False)}]"
    return text or "(the whole file)"
