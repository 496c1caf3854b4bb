"""parse_json: lenient reading of what small models write, and a strict check against the schema."""

from __future__ import annotations

from typing import Any

import pytest

from onlooker.llm import InvalidOutput
from onlooker.llm.schema import check, parse_json, schema_problem

FINDINGS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string", "maxLength": 40},
        "findings": {
            "type": "array",
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {
                    "severity": {"type": "string", "enum": ["low", "high"]},
                    "line": {"type": "integer"},
                },
                "required": ["severity"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["summary", "findings"],
}


def test_plain_json() -> None:
    assert parse_json('{"summary": "ok", "findings": []}', FINDINGS) == {
        "summary": "ok",
        "findings": [],
    }


def test_code_fence_and_prose_around_it() -> None:
    text = 'Here you go:\n```json\n{"summary": "ok", "findings": [{"severity": "low"}]}\n```\nBye'
    assert parse_json(text, FINDINGS)["findings"] == [{"severity": "low"}]


def test_a_fence_after_prose_with_braces() -> None:
    text = 'Use {braces} like this:\n```\n{"summary": "s", "findings": []}\n```'
    assert parse_json(text, FINDINGS)["summary"] == "s"


def test_raw_newline_inside_a_string() -> None:
    text = '{"summary": "line one\nline two", "findings": []}'
    assert parse_json(text, FINDINGS)["summary"] == "line one\nline two"


def test_trailing_text_after_the_value() -> None:
    text = '{"summary": "ok", "findings": []} I hope this helps! {"not": "this"}'
    assert parse_json(text, FINDINGS)["summary"] == "ok"


def test_a_fence_inside_a_string_is_not_taken_for_the_answer() -> None:
    text = '{"summary": "see ```{\\"severity\\": \\"low\\"}```", "findings": []}'
    assert parse_json(text, FINDINGS)["findings"] == []


def test_array_schema_finds_the_array() -> None:
    schema = {"type": "array", "items": {"type": "integer"}, "maxItems": 3}
    assert parse_json("The numbers: [1, 2, 3].", schema) == [1, 2, 3]


def test_scalar_schema() -> None:
    assert parse_json(" true ", {"type": "boolean"}) is True


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("I cannot help with that.", "holds no JSON object"),
        ('{"summary": "cut', "ends before its JSON is complete"),
        ('{"summary": "ok", "findings": [', "ends before its JSON is complete"),
        ('{"summary": "ok" "findings": []}', "not valid JSON: Expecting ',' delimiter at line 1"),
    ],
)
def test_not_json(text: str, message: str) -> None:
    with pytest.raises(InvalidOutput, match=message) as caught:
        parse_json(text, FINDINGS)
    assert caught.value.text == text


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"findings": []}, "$: missing required property 'summary'"),
        ({"summary": 3, "findings": []}, "$.summary: expected string, got integer"),
        (
            {"summary": "x" * 41, "findings": []},
            "$.summary: 41 characters, more than the maximum 40",
        ),
        (
            {"summary": "s", "findings": [{"severity": "low"}] * 3},
            "$.findings: 3 items, more than the maximum 2",
        ),
        (
            {"summary": "s", "findings": [{"severity": "low"}, {"severity": "urgent"}]},
            '$.findings[1].severity: "urgent" is not one of "low", "high"',
        ),
        (
            {"summary": "s", "findings": [{"severity": "low", "extra": 1}]},
            "$.findings[0]: unexpected property 'extra' (allowed: severity, line)",
        ),
        (
            {"summary": "s", "findings": [{"severity": "low", "line": True}]},
            "$.findings[0].line: expected integer, got boolean",
        ),
        ([], "$: expected object, got array"),
    ],
)
def test_schema_problems_name_the_path(value: Any, problem: str) -> None:
    assert schema_problem(value, FINDINGS) == problem
    with pytest.raises(InvalidOutput, match="does not fit the schema"):
        check(value, FINDINGS)


def test_a_fitting_value_has_no_problem() -> None:
    value = {"summary": "s", "findings": [{"severity": "high", "line": 4}], "note": "extra ok"}
    assert schema_problem(value, FINDINGS) is None
    assert check(value, FINDINGS) is value


def test_numbers_and_unions() -> None:
    schema = {"type": ["integer", "null"], "minimum": 1, "maximum": 5}
    assert schema_problem(None, schema) is None
    assert schema_problem(3, schema) is None
    assert schema_problem(2.0, schema) is None
    assert schema_problem(9, schema) == "$: 9 is above the maximum 5"
    assert schema_problem("3", schema) == "$: expected integer or null, got string"
    assert schema_problem(1.5, {"type": "number"}) is None
    assert schema_problem(False, {"type": "number"}) == "$: expected number, got boolean"


def test_odd_property_names_are_quoted_in_the_path() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "string"}}
    assert schema_problem({"a b": 1}, schema) == '$["a b"]: expected string, got integer'
