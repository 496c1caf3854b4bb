"""parse_json: lenient reading of what small models write, and a strict check against the schema."""

from __future__ import annotations

from typing import Any

import jsonschema
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


def test_keywords_beyond_onlookers_own_schemas_are_checked_too() -> None:
    schema = {
        "$defs": {"ref": {"type": "string", "pattern": "^[a-z]+:[0-9]+$"}},
        "type": "object",
        "properties": {
            "where": {"$ref": "#/$defs/ref"},
            "tags": {"type": "array", "uniqueItems": True},
            "score": {"anyOf": [{"type": "integer"}, {"const": "n/a"}]},
        },
    }
    assert schema_problem({"where": "app:12", "tags": ["a", "b"], "score": "n/a"}, schema) is None
    assert schema_problem({"where": "app.py line 12"}, schema) == (
        "$.where: 'app.py line 12' does not match '^[a-z]+:[0-9]+$'"
    )
    assert (
        schema_problem({"tags": ["a", "a"]}, schema) == "$.tags: ['a', 'a'] has non-unique elements"
    )
    assert (problem := schema_problem({"score": 0.5}, schema)) and problem.startswith("$.score: ")


def test_the_shallowest_problem_is_told_first() -> None:
    value = {"findings": [{"severity": "urgent"}]}  # summary missing, and a bad severity inside
    assert schema_problem(value, FINDINGS) == "$: missing required property 'summary'"


def test_a_schema_names_its_draft_and_a_broken_schema_is_the_callers_error() -> None:
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}
    assert schema_problem([3], draft7) == "$[0]: expected string, got integer"
    with pytest.raises(jsonschema.SchemaError):
        schema_problem({}, {"type": "objekt"})
