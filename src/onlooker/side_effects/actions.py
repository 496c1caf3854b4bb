"""The built-in side effects: save a work product, summarize a search, log activity, collect
media. Each is `action(call, ctx) -> Written | Iterable[Written] | None` and writes through
`ctx.archive` only; text from the call is redacted before it is written (specs/side-effects.md).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.events import ToolCall
from ..errors import SideEffectError
from ..text.redact import redact
from ._rules import MEDIA_NAME, Rule
from .archive import Archive, Written
from .search_summary import search_summary


@dataclass(frozen=True, slots=True)
class EffectContext:
    """What a side effect may use: the call's rule, the session's archive, the project."""

    rule: Rule
    archive: Archive
    project_root: Path
    project: str
    session_id: str


def save_work_product(call: ToolCall, ctx: EffectContext) -> Iterator[Written]:
    """Copy the file the call wrote into `files/<its path in the project>`."""
    for path in call.paths:
        source = Path(path) if os.path.isabs(path) else ctx.project_root / path
        try:
            relative = Path(os.path.realpath(source)).relative_to(
                os.path.realpath(ctx.project_root)
            )
        except ValueError:
            yield Written("", "", 0, redact(path), "outside the project; not copied")
            continue
        yield _copied(ctx, source, f"files/{relative.as_posix()}")


def summarize_search(call: ToolCall, ctx: EffectContext) -> Written:
    """A Markdown summary of what a search or fetch showed: what was asked, then each result's
    title, link and snippet, and the text returned, in `search_results/summary_<time>_<call>.md`."""
    summary, query = search_summary(call)
    text = redact(summary)[: ctx.archive.limits.max_summary_bytes]
    stamp = call.at.strftime("%Y%m%dT%H%M%S")
    return ctx.archive.write_text(
        f"search_results/summary_{stamp}_{_short(call.call_id)}.md", text, source=query
    )


def collect_media(call: ToolCall, ctx: EffectContext) -> Iterator[Written]:
    """Copy media files a tool result names (`out/clip.mp4`) into `media/`."""
    extensions = tuple(str(e).lower().lstrip(".") for e in ctx.rule.options.get("extensions", ()))
    seen: set[str] = set()
    for match in MEDIA_NAME.finditer(f"{call.output}\n{json.dumps(call.result or {})}"):
        name = match.group(1)
        if name in seen or (extensions and name.rsplit(".", 1)[-1].lower() not in extensions):
            continue
        seen.add(name)
        source = Path(os.path.expanduser(name))
        if not source.is_absolute():
            source = ctx.project_root / source
        if not source.is_file():
            continue
        yield _copied(ctx, source, f"media/{source.name}")


def _copied(ctx: EffectContext, source: Path, relative: str) -> Written:
    """The copy, or what was refused and why (a path leading out of the project is never
    followed; retrying would not change that)."""
    try:
        return ctx.archive.copy(source, relative, ctx.project_root)
    except SideEffectError as exc:
        return Written("", "", 0, redact(str(source)), f"refused: {exc}")


def _short(call_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", call_id)[-12:] or "call"
