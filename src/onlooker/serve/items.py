"""What the viewer shows of one journal line: a small, flat item (specs/serve.md).

Journals are the truth the hooks write, so the live feed and a session's timeline are both made of
items decoded from journal lines. Agent and tool text is redacted again and clipped here, as the
report does, before it leaves the process.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.assessment import Assessment
from ..core.records import decode_record
from ..store.home import safe_name
from ..text.clipping import clip
from ..text.redact import redact

TEXT_LIMIT = 4000
"""Characters of a prompt, an error or a delivered text kept in an item."""

SHOWN = frozenset(
    {"session_started", "user_prompt", "tool_call", "assessment", "observer_failure",
     "turn_ended", "session_ended", "compacting", "subagent_started", "subagent_stopped",
     "finding_created", "finding_seen", "finding_acknowledged", "finding_resolved",
     "memory_created", "memories_forgotten", "improvement_recorded", "told"}
)  # fmt: skip
"""The journal kinds the viewer shows; the rest (snapshots' bookkeeping) is left out."""

_PREFIX = b'{"kind":"'


def line_kind(line: bytes) -> str:
    """The `kind` of a journal line without decoding it (the codec writes `kind` first)."""
    end = line.find(b'"', len(_PREFIX))
    return line[len(_PREFIX) : end].decode() if line.startswith(_PREFIX) and end > 0 else ""


def item_of(line: bytes, project: str, session: str) -> dict[str, Any] | None:
    """The item of one journal line of `session` (the journal's name) in `project`; None for a
    kind the viewer does not show or a line that does not decode."""
    kind = line_kind(line)
    if kind not in SHOWN:
        return None
    try:
        data = json.loads(line)
        item = _shape(kind, data)
    except (ValueError, KeyError, TypeError):
        return None
    event_session = str(data.get("session_id") or "")
    parent, lane = lane_of(event_session)
    session = safe_name(parent) if lane else session
    return {"kind": kind, "project": project, "session": session, "lane": lane,
            "session_id": event_session, **item}  # fmt: skip


def lane_of(session_id: str) -> tuple[str, str]:
    """(the main session, the subagent's lane) of a session id; a subagent's events carry
    `<session>/<agent id>` (runtime.subagent_session_id), the main agent's lane is ''."""
    parent, _, agent = session_id.partition("/")
    return parent, agent


def _text(value: Any) -> str:
    return clip(redact(str(value or "")), TEXT_LIMIT)


def _shape(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    if kind == "assessment":
        found = decode_record(data)
        if not isinstance(found, Assessment):
            raise TypeError(kind)
        return {
            "at": data["timestamp"], "observer": found.observer_name,
            "severity": found.severity, "call": found.call_index,
            "text": _text(found.render()),
        }  # fmt: skip
    if kind == "tool_call":
        return {
            "at": data["at"], "tool": str(data.get("tool", "")), "ok": bool(data.get("ok", True)),
            "call": int(data.get("index") or 0), "text": _text(data.get("error")),
        }  # fmt: skip
    if kind == "observer_failure":
        return {
            "at": data["at"], "observer": str(data["observer"]), "ok": False,
            "call": int(data.get("call_index") or 0), "text": _text(data.get("error")),
        }  # fmt: skip
    if kind.startswith("finding"):
        return _finding_change(kind, data)
    if kind == "told":  # exactly what the agent got: the context text, a block's reason
        said = "\n\n".join(p for p in (data.get("text"), data.get("block")) if p)
        return {"at": data["at"], "seq": int(data.get("seq") or 0),
                "blocked": bool(data.get("block")), "text": _text(said)}  # fmt: skip
    if kind in ("memory_created", "memories_forgotten", "improvement_recorded"):
        return {"at": data.get("at", ""), "text": ""}
    item: dict[str, Any] = {"at": data["at"], "text": _text(data.get("text"))}
    if kind == "session_started":
        item["agent"] = str(data.get("agent_name") or "")
        item["cwd"] = _text(data.get("cwd"))
        item["host"] = str(data.get("host") or "")
    if kind.startswith("subagent"):
        item["agent"] = str(data.get("agent_type") or data.get("agent_id") or "")
        item["agent_id"] = str(data.get("agent_id") or "")
    return item


def _finding_change(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    if kind == "finding_created":
        finding = data["finding"]
        return {
            "at": data["at"], "finding": finding["id"], "observer": finding.get("observer", ""),
            "severity": finding.get("severity", ""), "text": _text(finding.get("content")),
        }  # fmt: skip
    return {"at": data["at"], "finding": str(data.get("finding_id", "")),
            "severity": str(data.get("severity") or ""),
            "text": _text(data.get("note") or data.get("content"))}  # fmt: skip


def run_item(run: dict[str, Any]) -> dict[str, Any]:
    """The item of one reviewer run (a row of `Store.runs.after`)."""
    parent, lane = lane_of(run["session_id"])
    return {
        "kind": "reviewer_run", "project": run["project"], "session": safe_name(parent),
        "lane": lane, "session_id": run["session_id"], "at": run["started_at"], "run": run["n"],
        "observer": run["observer"],
        "status": run["status"], "model": run["model"], "input_tokens": run["input_tokens"],
        "output_tokens": run["output_tokens"], "cost_usd": run["cost_usd"],
        "seconds": round(float(run["duration"]), 3), "delivered_at": run["delivered_at"],
        "text": _text(run["report"] or run["error"]),
    }  # fmt: skip
