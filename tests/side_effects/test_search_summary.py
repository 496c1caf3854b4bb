"""Search summaries of tool shapes beyond Claude Code's own: a plain-text answer with links, a
JSON text output, an empty result; the tool's JSON is read, never pasted."""

from __future__ import annotations

from datetime import UTC, datetime

from onlooker.core.events import ToolCall
from onlooker.side_effects.search_summary import search_summary

AT = datetime(2026, 1, 6, 12, 0, tzinfo=UTC)


def summary(**fields: object) -> str:
    return search_summary(ToolCall(at=AT, call_id="c1", **fields))[0]  # type: ignore[arg-type]


def test_a_plain_text_answer_lists_its_links_by_their_titles() -> None:
    text = summary(
        tool="mcp__docs__ask",
        input={"question": "How do retries back off?"},
        output="Backoff is capped, see [Retry guide](https://example.com/retry).\n"
        "Also https://example.com/faq.",
    )
    assert text.startswith("# mcp__docs__ask: How do retries back off?\n\n- when:")
    assert (
        "## Links (2)\n- [Retry guide](https://example.com/retry)\n- https://example.com/faq\n"
        in text
    )
    assert "## What it returned\n\nBackoff is capped" in text


def test_a_json_text_output_is_read_as_results() -> None:
    output = '{"hits": [{"name": "Scheduler", "href": "https://x.dev/s", "body": "cap 0.4s"}]}'
    text = summary(tool="mcp__search__web", input={"q": "scheduler cap"}, output=output)
    assert "## Results (1)\n- [Scheduler](https://x.dev/s)\n  cap 0.4s" in text
    assert "What it returned" not in text and '{"' not in text


def test_a_call_that_returned_nothing_says_so() -> None:
    text = summary(tool="WebSearch", input={"query": "nothing"}, result={"query": "nothing",
                   "results": []})  # fmt: skip
    assert text.endswith("## What it returned\n\n(nothing)\n")
    assert "\n\n\n" not in text
