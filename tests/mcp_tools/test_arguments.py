"""Tool arguments checked by jsonschema against the tools' own input schemas, with the field named."""

from __future__ import annotations

import pytest

from onlooker.mcp.arguments import BadArguments, check_arguments
from onlooker.mcp.tool_specs import GET_OBSERVATIONS, SEARCH


def fault(arguments: object) -> tuple[str, str]:
    with pytest.raises(BadArguments) as caught:
        check_arguments(SEARCH.input_schema, arguments)
    return caught.value.field, str(caught.value)


def test_null_counts_as_not_given_and_the_arguments_come_back_as_sent() -> None:
    sent = {"query": "flaky test", "limit": None, "mode": None}
    assert check_arguments(SEARCH.input_schema, sent) is sent
    assert check_arguments(GET_OBSERVATIONS.input_schema, {"ids": [3, "a1b2"]})["ids"] == [
        3,
        "a1b2",
    ]
    assert fault({"query": None}) == ("query", "query: is required")


def test_each_fault_names_its_field_in_the_tools_words() -> None:
    assert fault("search everything") == ("arguments", "arguments: must be a JSON object")
    assert fault({"query": "   "}) == ("query", "query: must not be empty")  # blanks do not count
    assert fault({"query": "x", "limit": "5"}) == ("limit", "limit: must be an integer")
    assert fault({"query": "x", "limit": 51}) == ("limit", "limit: must be 50 or less")
    assert fault({"query": "x", "mode": "fuzzy"})[1] == (
        "mode: 'fuzzy' is not one of: both, text, vector"
    )
    assert fault({"query": "x", "files": ["a.py", 3]}) == ("files[1]", "files[1]: must be a string")
    assert fault({"query": "x", "kinds": []}) == ("kinds", "kinds: needs at least 1 item")
    field, message = fault({"query": "x", "sort": "new", "zone": "utc"})
    assert field == "sort" and message.startswith("sort: unknown argument; allowed: query, mode")


def test_the_shallowest_fault_is_told_first() -> None:
    assert fault({"limit": 0})[0] == "query"  # the missing argument, not the bad limit
