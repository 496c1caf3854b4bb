"""Check a tool call's arguments against the tool's JSON input schema, with errors naming the field.

jsonschema checks them, with two leniencies agents rely on: an argument given as null counts as not
given, and `minLength` counts a string's characters without the blanks around them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import BadArguments
from ..text.encodable import encodable

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

_VALIDATORS: dict[str, Validator] = {}


def check_arguments(schema: Mapping[str, Any], arguments: Any) -> dict[str, Any]:
    """`arguments` as a dict, once it fits `schema`; raises BadArguments otherwise."""
    from jsonschema.exceptions import best_match

    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise BadArguments("arguments", "must be a JSON object")
    checked: dict[str, Any] = encodable(arguments)  # no lone surrogate (text/encodable.py)
    for name, value in checked.items():
        _check_depth(name, value)
    given = {name: value for name, value in checked.items() if value is not None}
    error = best_match(_validator(schema).iter_errors(given))
    if error is not None:
        raise BadArguments(*_fault(error))
    return checked


def _validator(schema: Mapping[str, Any]) -> Validator:
    key = json.dumps(schema, sort_keys=True, default=str)
    if key not in _VALIDATORS:
        from jsonschema.validators import Draft202012Validator, extend

        keywords = {"minLength": _min_length_without_blanks}
        checker = extend(Draft202012Validator, keywords)  # type: ignore[no-untyped-call]
        checker.check_schema(schema)
        _VALIDATORS[key] = checker(schema)
    return _VALIDATORS[key]


MAX_DEPTH = 32
"""Levels of objects and arrays in one argument: deeper ones are refused before any tool runs
(and before an answer that repeats them could fail to encode)."""


def _check_depth(field: str, value: Any) -> None:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise BadArguments(field, f"is nested deeper than {MAX_DEPTH} levels")
        stack.extend(
            (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
        )


def _min_length_without_blanks(
    validator: Validator, least: int, value: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    from jsonschema.exceptions import ValidationError

    if isinstance(value, str) and len(value.strip()) < least:
        yield ValidationError(f"{value!r} is shorter than {least} characters")


def _fault(error: ValidationError) -> tuple[str, str]:
    """The argument at fault and what is wrong with it."""
    value: Any = error.instance
    rule: Any = error.validator_value
    keyword = str(error.validator)
    if keyword == "required":
        return next(name for name in rule if name not in value), "is required"
    if keyword == "additionalProperties" and isinstance(error.schema, dict):
        allowed = list(error.schema.get("properties", {}))
        unknown = sorted(name for name in value if name not in allowed)
        return unknown[0], f"unknown argument; allowed: {', '.join(allowed)}"
    field = "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
    ).lstrip(".")
    return field or "arguments", _problem(keyword, rule, value) or error.message


def _problem(keyword: str, rule: Any, value: Any) -> str | None:
    if keyword == "type":
        kinds = [rule] if isinstance(rule, str) else list(rule)
        return f"must be {' or '.join(_article(kind) for kind in kinds)}"
    if keyword == "enum":
        return f"{value!r} is not one of: {', '.join(str(v) for v in rule)}"
    if keyword == "minimum":
        return f"must be {rule} or more"
    if keyword == "maximum":
        return f"must be {rule} or less"
    if keyword == "minLength":
        return "must not be empty" if rule == 1 else f"needs at least {rule} characters"
    if keyword == "minItems":
        return f"needs at least {rule} item{'s' * (rule != 1)}"
    if keyword == "maxItems":
        return f"takes at most {rule} items, got {len(value)}"
    return None


def _article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
