"""Telling the person, once per session, that the project's config has problems (specs/config.md,
"Fail safe"): which file, line and key, what is allowed, and which sections use their defaults.

The notice goes where the host shows the user a message (Claude Code's `systemMessage`), at a
prompt: Claude Code 2.1.328 shows a prompt hook's notice in both interactive and headless runs.
A session is told again only when the problems change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import ClassVar

from ..config import Loaded
from ..core.events import Event, UserPrompt
from ..core.records import Record, record
from ..core.session import Session

SHOWN = 8
"""Problems the notice lists; it counts the rest."""


@record("config_notice")
@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigNotice(Record):
    """The problems a session was told about (their digest)."""

    window: ClassVar[int | None] = 1
    told: str = ""


def config_notice(session: Session, loaded: Loaded, event: Event) -> str:
    """The notice for this event ('' when the config has no problem, this is not a prompt, or
    the session was told these problems already); telling it is remembered in the session."""
    if not loaded.problems or not isinstance(event, UserPrompt):
        return ""
    text = notice_text(loaded)
    digest = hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()
    told = session[ConfigNotice].latest()
    if told is not None and told.told == digest:
        return ""
    session[ConfigNotice].seed(ConfigNotice(told=digest))
    return text


def notice_text(loaded: Loaded) -> str:
    """What the person reads: the problems, then what runs meanwhile."""
    problems = loaded.problems
    if loaded.defaulted == ("*",):
        meanwhile = "onlooker runs with its defaults until the file is fixed."
    elif loaded.defaulted:
        sections = ", ".join(loaded.defaulted)
        meanwhile = f"These sections use their defaults until fixed: {sections}; the rest runs."
    else:
        meanwhile = "Those keys are left out; everything else runs as written."
    lines = [f"onlooker: the project's config has {_count(len(problems))}:"]
    lines += [f"  {problem}" for problem in problems[:SHOWN]]
    if len(problems) > SHOWN:
        lines.append(f"  … and {len(problems) - SHOWN} more (`onlooker doctor` lists them)")
    lines.append(meanwhile)
    return "\n".join(lines)


def _count(n: int) -> str:
    return f"{n} problem{'s' if n != 1 else ''}"
