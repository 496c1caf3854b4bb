"""What a search or fetch call showed, read from the shape its tool returns, as a Markdown summary
(the `summarize_search` side effect, specs/side-effects.md).

The tool's structured result is read, never pasted: results with a title and link (WebSearch's
`results[].content[]`, an MCP search's `results[]`), the prose the agent was given (WebFetch's
`result`, WebSearch's text entries, a plain-text output), and, when no result names its link, the
links in that prose (`[title](url)` or bare). Every line of the input that says what was asked
(WebFetch's `prompt` beside its `url`) is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..core.events import ToolCall
from ..text.clipping import clip, head

QUERY_KEYS = ("query", "q", "search_query", "url", "prompt", "question", "queries")
"""Input keys that say what was asked; the first present heads the summary."""
TITLE_KEYS = ("title", "name", "headline")
LINK_KEYS = ("url", "link", "href", "uri")
SNIPPET_KEYS = ("snippet", "description", "content", "text", "summary", "body")
PROSE_KEYS = ("result", "answer", "text", "summary", "output", "content")
"""Keys of a result object whose text is what the agent read (WebFetch: `result`)."""
SEARCH_ITEMS = 50
"""Results listed in one summary."""
PROSE_LIMIT = 4000
"""Characters of the returned text kept (head and tail)."""
INPUT_LIMIT = 500
"""Characters of one input line kept."""

_MARKDOWN_LINK = re.compile(r"\[([^\]\n]{1,300})\]\((https?://[^)\s]+)\)")
_URL = re.compile(r"https?://[^\s)\]>\"'`]+")


def search_summary(call: ToolCall) -> tuple[str, str]:
    """(the summary's Markdown, the query it is about); not yet redacted."""
    asked = list(_asked(call.input))
    query = asked[0][1] if asked else ""
    lines = [f"# {call.tool}: {_one_line(query, INPUT_LIMIT) or '(no query)'}", ""]
    lines += [f"- {key}: {_one_line(value, INPUT_LIMIT)}" for key, value in asked[1:]]
    lines += [f"- when: {call.at.isoformat()}", f"- tool call: {call.call_id or '-'}", ""]
    data = _data(call)
    items = list(_items(data))[:SEARCH_ITEMS] if data is not None else []
    prose = "\n\n".join(_prose(data, call.output)).strip()
    if items:
        lines.append(f"## Results ({len(items)})")
        lines += [_item_line(*item) for item in items]
    else:
        links = list(dict.fromkeys(_links(prose)))[:SEARCH_ITEMS]
        if links:
            lines.append(f"## Links ({len(links)})")
            lines += [_item_line(title, link, "") for title, link in links]
    if prose or not items:
        lines += ["", "## What it returned", "", clip(prose, PROSE_LIMIT) or "(nothing)"][
            not lines[-1] :
        ]
    return "\n".join(lines).rstrip() + "\n", query


def _asked(data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    for key in QUERY_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            yield key, value
        elif isinstance(value, list) and value:
            yield key, "; ".join(str(v) for v in value)


def _data(call: ToolCall) -> Any:
    """The structured result: the host's, else the output when it is JSON."""
    if call.result:
        return call.result
    text = call.output.strip()
    if text.startswith(("{", "[")):
        try:
            return json.loads(text)
        except ValueError:
            return None
    return None


def _prose(data: Any, output: str) -> Iterator[str]:
    """The text the agent read: prose fields and text entries of the result, else the output
    when it is not JSON."""
    if data is None:
        if output.strip():
            yield output
        return
    if isinstance(data, Mapping):
        for key in PROSE_KEYS:
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                yield value
        lists = [v for v in data.values() if isinstance(v, list)]
    else:
        lists = [data] if isinstance(data, list) else []
    for values in lists:
        for value in values:
            if isinstance(value, str) and value.strip() and not value.lstrip().startswith("{"):
                yield value


def _items(data: Any, depth: int = 0) -> Iterator[tuple[str, str, str]]:
    """(title, link, snippet) of each result object in the structured result."""
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


def _links(text: str) -> Iterator[tuple[str, str]]:
    """(title, link) of the links in prose: a Markdown link's text, else the link itself."""
    for line in text.splitlines():
        for found in _MARKDOWN_LINK.finditer(line):
            yield _one_line(found.group(1), 200), found.group(2)
        for link in _URL.findall(_MARKDOWN_LINK.sub(" ", line)):
            link = link.rstrip(".,;:")
            yield link, link


def _item_line(title: str, link: str, snippet: str) -> str:
    head = link if title == link else f"[{title}]({link})" if link else title
    return f"- {head}" + (f"\n  {snippet}" if snippet else "")


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> str:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    return ""


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else head(flat, limit - 1).rstrip() + "…"
