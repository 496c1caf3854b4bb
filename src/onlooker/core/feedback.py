"""What reaches the agent right after an event: one message per episode, told when it starts and
once more when it escalates, capped, never repeated.

An episode (the findings of one or more observers resting on the same calls) is told when it
starts and at most once more when it gets more severe; then it stays quiet until it ends or
changes (its calls no longer overlap what was told): the next turn's open-observations summary
carries it. Status lines and assessments without findings are told when their text is new.
Claude Code cuts hook output at 10,000 characters, so feedback is capped there (specs/engine.md).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from .assessment import Assessment, Finding, severity_rank
from .message import INTRODUCTION, Message, cited_calls, same_calls, spoken
from .records import Record, record
from .session import Session

FEEDBACK_LIMIT = 10_000
REMEMBERED = 200
EPISODES_REMEMBERED = 64
TELLINGS = 2
"""Times an episode is told: when it starts, and once when it escalates."""
SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class ToldEpisode:
    """An episode the agent was told about: its findings' keys, its calls, how bad, how often."""

    keys: frozenset[str]
    calls: frozenset[int]
    severity: str
    times: int = 1
    first_ids: tuple[str, ...] = ()
    """`key\x00id` of the findings as first told (an escalation names them so again)."""


@record("delivered")
@dataclass(frozen=True, slots=True, kw_only=True)
class Delivered(Record):
    """What the session was told: fingerprints of texts (newest last, bounded), the episodes
    told, and whether the line on acting by id was said."""

    fingerprints: tuple[str, ...] = ()
    episodes: tuple[ToldEpisode, ...] = ()
    introduced: bool = False


@record("told")
@dataclass(frozen=True, slots=True, kw_only=True)
class Told(Record):
    """What the agent was told at one event, exactly as delivered: the context text and the
    reason of a block (journaled beside the event; the viewer shows it, specs/runtime.md)."""

    session_id: str
    at: datetime
    seq: int
    """The event's `seq` in the session."""
    text: str = ""
    block: str = ""


@dataclass(frozen=True, slots=True)
class Telling:
    """What to say at one event: the messages, and whether to say how to act on ids."""

    messages: tuple[Message, ...] = ()
    introduce: bool = False

    def render(self, limit: int = FEEDBACK_LIMIT, ids: Mapping[str, str] | None = None) -> str:
        """The text, within `limit`; `ids` maps findings' own ids to their stored ones."""
        if not self.messages:
            return ""
        text = compose(self.messages, limit - len(INTRODUCTION) - 2, ids)
        return f"{text}\n\n{INTRODUCTION}" if self.introduce else text


def fingerprint(assessment: Assessment) -> str:
    text = f"{assessment.observer_name}\x00{assessment.render()}"
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def finding_key(observer: str, finding: Finding) -> str:
    """What names a finding's episode across runs: its observer and episode (else category)."""
    episode = finding.metadata.get("episode") or finding.category or finding.content
    return f"{observer}\x00{episode}"


def compose(
    messages: Sequence[Message | Assessment],
    limit: int = FEEDBACK_LIMIT,
    ids: Mapping[str, str] | None = None,
) -> str:
    """Join rendered messages within `limit` characters, keeping the most severe first."""
    texts = [m.render(ids) if isinstance(m, Message) else m.render() for m in messages]
    if sum(map(len, texts)) + len(SEPARATOR) * max(len(texts) - 1, 0) <= limit:
        return SEPARATOR.join(texts)
    order = sorted(range(len(texts)), key=lambda i: -severity_rank(messages[i].severity))
    kept: set[int] = set()
    used = 0
    for i in order:
        cost = len(texts[i]) + (len(SEPARATOR) if kept else 0)
        if used + cost <= limit - 80:
            kept.add(i)
            used += cost
    if not kept:
        note = "\n…[clipped]"
        return texts[order[0]][: limit - len(note)] + note
    omitted = len(texts) - len(kept)
    body = SEPARATOR.join(texts[i] for i in range(len(texts)) if i in kept)
    return f"{body}{SEPARATOR}[{omitted} more assessment{'s' if omitted != 1 else ''} omitted]"


_UNTOLD = Telling((), False)


def tell(session: Session, assessments: Sequence[Assessment]) -> Telling:
    """What of this event's assessments is news to the agent; marks it told in the session."""
    if not assessments:  # most events: nothing to tell, nothing to mark
        return _UNTOLD
    delivered = session[Delivered].latest() or Delivered()
    seen = set(delivered.fingerprints)
    marks: list[str] = []
    episodes = list(delivered.episodes)
    told: list[Message] = []
    for message, members in spoken(assessments):
        if message.status or message.summary_only:
            mark = fingerprint(members[0])
            if mark in seen:
                continue
            seen.add(mark)
            marks.append(mark)
            told.append(message)
            continue
        news = _news(episodes, message, members)
        if news is not None:
            told.append(news)
    introduce = not delivered.introduced and any(m.facts for m in told)
    if told or episodes != list(delivered.episodes):
        session[Delivered].seed(
            Delivered(
                fingerprints=(*delivered.fingerprints, *marks)[-REMEMBERED:],
                episodes=tuple(episodes[-EPISODES_REMEMBERED:]),
                introduced=delivered.introduced or introduce,
            )
        )
    return Telling(tuple(told), introduce)


def immediate_feedback(
    session: Session, assessments: Sequence[Assessment], limit: int = FEEDBACK_LIMIT
) -> str:
    """The text to inject now (see `tell`), capped; marks what it says as told."""
    return tell(session, assessments).render(limit)


def _news(
    episodes: list[ToldEpisode], message: Message, members: Sequence[Assessment]
) -> Message | None:
    """The message if its episode is new or escalates; updates `episodes` either way."""
    keyed = {f.id: finding_key(a.observer_name, f) for a in members for f in a.findings}
    keys = frozenset(keyed.values())
    calls = frozenset().union(*(cited_calls(f.evidence) for fact in message.facts for f in fact))
    level = message.severity
    for i, known in enumerate(episodes):
        overlapping = same_calls(known.calls, calls) if calls and known.calls else True
        if not overlapping or not (keys & known.keys or same_calls(known.calls, calls)):
            continue
        worse = severity_rank(level) > severity_rank(known.severity)
        tell = worse and known.times < TELLINGS
        first = dict(entry.rsplit("\x00", 1) for entry in known.first_ids)
        new = tuple(f"{key}\x00{i}" for i, key in keyed.items() if key not in first)
        episodes[i] = ToldEpisode(
            known.keys | keys,
            calls or known.calls,
            level if worse else known.severity,
            known.times + tell,
            known.first_ids + new,
        )
        episodes.append(episodes.pop(i))
        if not tell:
            return None
        aliases = tuple((i, first[key]) for i, key in keyed.items() if key in first)
        return dataclasses.replace(message, escalation=True, aliases=aliases)
    told = tuple(f"{key}\x00{i}" for i, key in keyed.items())
    episodes.append(ToldEpisode(keys, calls, level, first_ids=told))
    return message
