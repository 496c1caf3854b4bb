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
from typing import Any

from ..core.events import ToolCall
from ..errors import SideEffectError
from ..text.clipping import clip
from ..text.redact import redact
from ._rules import MEDIA_NAME, Rule
from .archive import Archive, Written

QUERY_KEYS = ("query", "q", "search_query", "url", "prompt", "question", "queries")
TITLE_KEYS = ("title", "name", "headline")
LINK_KEYS = ("url", "link", "href", "uri")
SNIPPET_KEYS = ("snippet", "description", "content", "text", "summary", "body")
URL = re.compile(r"https?://[^\s)\]>\"']+")
SEARCH_ITEMS = 50
"""Results listed in one search summary."""
LOG_OUTPUT = 4000
"""Characters of a command's output kept in the activity log (head and tail)."""


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
    """A Markdown summary of what a search or fetch showed: the query, then each result's title,
    link and snippet, in `search_results/summary_<time>_<call>.md`."""
    query = _query(call.input)
    items = list(_results(call))[:SEARCH_ITEMS]
    lines = [f"# {call.tool}: {query or '(no query)'}", ""]
    lines += [f"- when: {call.at.isoformat()}", f"- tool call: {call.call_id or '-'}", ""]
    if items:
        lines.append(f"## Results ({len(items)})")
        for title, link, snippet in items:
            head = f"[{title}]({link})" if link else title
            lines.append(f"- {head}" + (f"\n  {snippet}" if snippet else ""))
    else:
        lines += ["## What it returned", "", clip(call.output, 4000)]
    text = redact("\n".join(lines) + "\n")[: ctx.archive.limits.max_summary_bytes]
    stamp = call.at.strftime("%Y%m%dT%H%M%S")
    return ctx.archive.write_text(
        f"search_results/summary_{stamp}_{_short(call.call_id)}.md", text, source=query
    )


def activity_log(call: ToolCall, ctx: EffectContext) -> Written:
    """Append the command or code of an exec call, and its output, to the session's log."""
    what = call.input.get("command") or call.input.get("code") or call.input
    shown = what if isinstance(what, str) else json.dumps(what, ensure_ascii=False, default=str)
    entry = (
        f"## {call.at.isoformat()} {call.tool} ({call.call_id or '-'})\n"
        f"$ {shown}\n{clip(call.output, LOG_OUTPUT)}\n\n"
    )
    return ctx.archive.append_text("workbench_activity/activity.log", redact(entry))


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


def _query(data: dict[str, Any]) -> str:
    for key in QUERY_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, list) and value:
            return "; ".join(str(v) for v in value)
    return ""


def _results(call: ToolCall) -> Iterator[tuple[str, str, str]]:
    """(title, link, snippet) of each result: from JSON where the result is JSON, else links."""
    data: Any = call.result
    if not data:
        try:
            data = json.loads(call.output)
        except ValueError:
            data = None
    found = list(_items(data)) if data is not None else []
    if found:
        yield from found
        return
    for line in call.output.splitlines():
        for link in URL.findall(line):
            title = line.replace(link, "").strip(" -*:[]()\t") or link
            yield clip(title, 200), link, ""


def _items(data: Any, depth: int = 0) -> Iterator[tuple[str, str, str]]:
    if depth > 6:
        return
    if isinstance(data, dict):
        link = _first(data, LINK_KEYS)
        title = _first(data, TITLE_KEYS)
        if link and (title or _first(data, SNIPPET_KEYS)):
            yield clip(title or link, 200), link, clip(_first(data, SNIPPET_KEYS), 400)
            return
        for value in data.values():
            yield from _items(value, depth + 1)
    elif isinstance(data, list):
        for value in data:
            yield from _items(value, depth + 1)
    elif isinstance(data, str) and depth and data.lstrip().startswith(("[", "{")):
        try:
            yield from _items(json.loads(data), depth + 1)
        except ValueError:
            return


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    return ""


def _short(call_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", call_id)[-12:] or "call"
