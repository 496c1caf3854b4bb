"""The message: what the agent hears about one episode, in one voice, with ids it can act on.

Observers whose findings rest on the same calls describe one episode: their assessments become one
`Message` naming them together, each fact once, with the short ids of the findings that state it.
Deadline and plan progress are status lines. Every host renders the same text (specs/engine.md,
Feedback).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .assessment import Assessment, Finding, Severity, severity_rank

SHORT_ID = 8
"""Characters of a finding id shown to the agent (the observations tool accepts a prefix)."""
INTRODUCTION = (
    "Ids in brackets name stored observations: the observations tool (MCP `observations`, or "
    "`onlooker observations ack|resolve ID`) acknowledges or resolves one by id."
)
"""Said once per session, with the first message that carries an id."""

_CITED = re.compile(r"\bcalls? ((?:\d+(?:-\d+)?)(?:, \d+(?:-\d+)?)*)")


def cited_calls(text: str | None) -> frozenset[int]:
    """Call numbers that evidence cites (`calls 3, 5-9 and 2 earlier`, `call 4`)."""
    found: set[int] = set()
    for match in _CITED.finditer(text or ""):
        for part in match.group(1).split(", "):
            low, _, high = part.partition("-")
            found.update(range(int(low), int(high or low) + 1))
    return frozenset(found)


def same_calls(a: frozenset[int], b: frozenset[int]) -> bool:
    """Two sets of calls are one episode's: at least half of the smaller is in both."""
    return bool(a and b) and 2 * len(a & b) >= min(len(a), len(b))


def is_stored(severity: str) -> bool:
    """Low or above: a finding the agent is told about, so kept with an id it can act on."""
    return severity_rank(severity) >= severity_rank("low")


def summary_finding(assessment: Assessment) -> Finding:
    """The finding an assessment without findings stands for (its summary), with an id derived
    from the assessment, so the store and the message agree on it."""
    key = f"{assessment.observer_name}\x00{assessment.call_index}\x00{assessment.summary}"
    return Finding(
        id=hashlib.blake2b(key.encode(), digest_size=16).hexdigest(),
        content=assessment.summary,
        severity=assessment.severity,
    )


@dataclass(frozen=True, slots=True)
class Message:
    """One episode (or one status) as the agent hears it at one event."""

    observers: tuple[str, ...]
    summary: str
    facts: tuple[tuple[Finding, ...], ...] = ()
    """Each fact once: the findings that state it, the one shown first."""
    suggestions: tuple[str, ...] = ()
    severity: Severity = "info"
    status: bool = False
    escalation: bool = False
    """The episode was told before; now it is worse (its suggestion is not said again)."""
    summary_only: bool = False
    """An assessment without findings: its summary is the fact."""
    aliases: tuple[tuple[str, str], ...] = ()
    """(finding id, id first told for its episode): without a store, an escalation names the
    findings by the ids the agent was first given, as a store's continuing finding would."""

    def render(self, ids: Mapping[str, str] | None = None) -> str:
        """The text; `ids` maps a finding's own id to its stored one (else its own is shown)."""
        ids = {**dict(self.aliases), **(ids or {})}
        name = ", ".join(self.observers)
        if self.status:
            return " ".join((f"[{name}] {self.summary}", *self.suggestions))
        summary = self.summary
        if self.summary_only and self.facts:
            summary = f"{summary} {_ids(self.facts[0], ids)}"
        lines = [f"[Trajectory Assessment - {name}]", "", summary]
        if self.facts and not self.summary_only:
            lines.append("")
            lines.extend(_fact_line(fact, ids) for fact in self.facts)
        if self.suggestions and not self.escalation:
            lines.append("")
            lines.extend(f"→ {suggestion}" for suggestion in self.suggestions)
        return "\n".join(lines)


def _ids(fact: Sequence[Finding], ids: Mapping[str, str]) -> str:
    shown = list(dict.fromkeys(ids.get(f.id, f.id)[:SHORT_ID] for f in fact))
    return f"[{'id' if len(shown) == 1 else 'ids'} {', '.join(shown)}]"


def _fact_line(fact: Sequence[Finding], ids: Mapping[str, str]) -> str:
    """`• category [id 1a2b3c4d]: content (where it points)`; what another finding of the same
    fact adds after its cited calls (an error line) follows the shown one's content."""
    shown = fact[0]
    content = shown.content
    for other in fact[1:]:
        detail = other.content.partition("): ")[2].strip()
        if detail and detail not in content:
            content = f"{content.rstrip('.')}: {detail}"
            break
    where = ""
    ref = shown.source_ref or ""
    if shown.source_type == "file" and ref and ref not in content:
        where = f" ({ref})"
    elif shown.evidence and not cited_calls(content):
        where = f" ({shown.evidence})"
    head = f"{shown.category} {_ids(fact, ids)}" if shown.category else _ids(fact, ids)
    return f"• {head}: {content}{where}"


def messages_of(assessments: Sequence[Assessment]) -> list[Message]:
    """The messages of one event's assessments: statuses alone, the rest one per episode."""
    return [message for message, _ in spoken(assessments)]


def spoken(assessments: Sequence[Assessment]) -> list[tuple[Message, tuple[Assessment, ...]]]:
    """Each message with the assessments it speaks for: a status alone, and the assessments
    whose findings rest on the same calls together (an assessment without findings alone)."""
    statuses: list[tuple[Message, tuple[Assessment, ...]]] = []
    groups: list[list[Assessment]] = []
    reach: list[frozenset[int]] = []
    for assessment in assessments:
        if assessment.status:
            message = Message(
                (assessment.observer_name,), assessment.summary,
                suggestions=assessment.suggestions, status=True,
            )  # fmt: skip
            statuses.append((message, (assessment,)))
            continue
        calls = frozenset().union(*(cited_calls(f.evidence) for f in assessment.findings))
        joined = next((i for i, known in enumerate(reach) if same_calls(known, calls)), None)
        if joined is None or not assessment.findings:
            groups.append([assessment])
            reach.append(calls)
        else:
            groups[joined].append(assessment)
            reach[joined] = reach[joined] | calls
    return [*statuses, *((_message(group), tuple(group)) for group in groups)]


def _message(group: Sequence[Assessment]) -> Message:
    lead = max(group, key=lambda a: severity_rank(a.severity))  # the first of the most severe
    findings = [f for a in group for f in a.findings]
    if not findings:
        facts = ((summary_finding(lead),),) if is_stored(lead.severity) else ()
        return Message(
            (lead.observer_name,), lead.summary, facts, lead.suggestions, lead.severity,
            summary_only=True,
        )  # fmt: skip
    return Message(
        tuple(dict.fromkeys(a.observer_name for a in group)),
        lead.summary,
        facts_of(findings),
        lead.suggestions,
        lead.severity,
    )


def facts_of(findings: Iterable[Finding]) -> tuple[tuple[Finding, ...], ...]:
    """Findings that rest on the same calls (or say the same) are one fact; the most severe
    (the first of them) is shown."""
    facts: list[list[Finding]] = []
    for finding in findings:
        calls = cited_calls(finding.evidence)
        for fact in facts:
            if fact[0].content == finding.content or same_calls(
                cited_calls(fact[0].evidence), calls
            ):
                fact.append(finding)
                break
        else:
            facts.append([finding])
    return tuple(tuple(sorted(fact, key=lambda f: -severity_rank(f.severity))) for fact in facts)
