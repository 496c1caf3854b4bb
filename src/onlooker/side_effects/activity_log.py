"""The `activity_log` side effect: each exec call's command or code and its output, appended to
the session's `workbench_activity/activity.log` in call order (specs/side-effects.md).

Jobs finish in any order (the worker runs several at once, a failed one is retried later), so an
entry goes in before the first entry of a later call: entries are ordered by the call's time,
then its number in its session. Each entry starts with a head line naming both
(`## <time> <tool> (<call id>) · call <n>`); a line of a command or output that starts as a head
would is indented by a space, so it never passes for one.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

from ..core.events import ToolCall
from ..text.clipping import clip
from ..text.redact import redact
from .actions import EffectContext
from .archive import Written

LOG = "workbench_activity/activity.log"
LOG_OUTPUT = 4000
"""Characters of a command's output kept in the activity log (head and tail)."""

_HEAD = re.compile(r"^## (\S+) .* · call (\d+)$", re.MULTILINE)
_HEAD_LIKE = re.compile(r"^## ", re.MULTILINE)


def activity_log(call: ToolCall, ctx: EffectContext) -> Written:
    """Put the command or code of an exec call, and its output, in the session's log."""
    what = call.input.get("command") or call.input.get("code") or call.input
    shown = what if isinstance(what, str) else json.dumps(what, ensure_ascii=False, default=str)
    body = _HEAD_LIKE.sub(" ## ", f"$ {shown}\n{clip(call.output, LOG_OUTPUT)}")
    head = f"## {call.at.isoformat()} {call.tool} ({call.call_id or '-'}) · call {call.index}"
    order = (call.at, call.index)
    return ctx.archive.append_text(
        LOG, redact(f"{head}\n{body}\n\n"), place=lambda log: _place(log, order)
    )


def _place(log: str, order: tuple[datetime, int]) -> int:
    """Where an entry of `order` goes: before the first entry of a later call, else the end."""
    for head in _HEAD.finditer(log):
        try:
            later = (datetime.fromisoformat(head.group(1)), int(head.group(2))) > order
        except (ValueError, TypeError):
            continue
        if later:
            return head.start()
    return len(log)
