"""Model answers as JSON: a lenient parse, then a check against the JSON schema that was asked for.

Small models wrap JSON in code fences, put raw newlines inside strings and keep talking after the
closing brace; `parse_json` accepts all of that. The check is jsonschema's, all of JSON Schema
(draft 2020-12 unless the schema names its own `$schema`); the problem is told with its path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .model import InvalidOutput

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

__all__ = ["check", "parse_json", "schema_problem"]

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_DECODER = json.JSONDecoder(strict=False)  # strict=False lets raw control characters into strings

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (float,),
    "null": (type(None),),
}
"""JSON's names for Python's types, to say what a value is."""
_BOUNDS = {
    "minimum": "{size} is below the minimum {rule}",
    "maximum": "{size} is above the maximum {rule}",
    "minLength": "{size} characters, fewer than the minimum {rule}",
    "maxLength": "{size} characters, more than the maximum {rule}",
    "minItems": "{size} items, fewer than the minimum {rule}",
    "maxItems": "{size} items, more than the maximum {rule}",
}
"""How onlooker words a value out of bounds."""
_VALIDATORS: dict[str, Validator] = {}
"""Validators by their schema's JSON text: a schema is checked and compiled once."""
_CACHED = 64


def parse_json(text: str, schema: dict[str, Any]) -> Any:
    """The JSON value in `text`, checked against `schema`.

    Raises InvalidOutput (keeping `text`) when there is no complete JSON value in the text or the
    value does not fit the schema; the message gives the path of the problem, e.g. `$.items[2]`.
    """
    value = _decode(text, schema)
    problem = schema_problem(value, schema)
    if problem:
        raise InvalidOutput(f"the answer does not fit the schema: {problem}", text)
    return value


def check(value: Any, schema: dict[str, Any]) -> Any:
    """`value` itself when it fits `schema`; InvalidOutput naming the path otherwise."""
    problem = schema_problem(value, schema)
    if problem:
        raise InvalidOutput(f"the answer does not fit the schema: {problem}", json.dumps(value))
    return value


def _decode(text: str, schema: dict[str, Any]) -> Any:
    opener = {"object": "{", "array": "["}.get(schema.get("type", ""), "{[")
    fenced = [match.group(1) for match in _FENCE.finditer(text)]
    error: json.JSONDecodeError | None = None
    for candidate in [text, *fenced]:  # the whole text first: a string may hold a fence
        start = _first_of(candidate, opener)
        if start < 0:
            continue
        try:
            return _DECODER.raw_decode(candidate, start)[0]
        except json.JSONDecodeError as exc:
            error = error or exc
    if error is None:
        try:
            return _DECODER.decode(text.strip())  # a bare scalar, e.g. `true` or `"done"`
        except json.JSONDecodeError:
            raise InvalidOutput(f"the answer holds no JSON {_what(opener)}", text) from None
    if error.msg.startswith("Unterminated string") or error.pos >= len(error.doc.rstrip()):
        raise InvalidOutput("the answer ends before its JSON is complete (cut off?)", text)
    raise InvalidOutput(
        f"the answer is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}",
        text,
    )


def _first_of(text: str, chars: str) -> int:
    positions = [i for i in (text.find(c) for c in chars) if i >= 0]
    return min(positions) if positions else -1


def _what(opener: str) -> str:
    return {"{": "object", "[": "array"}.get(opener, "value")


def schema_problem(value: Any, schema: dict[str, Any], path: str = "$") -> str | None:
    """Where `value` fails `schema`, as `path: what is wrong`; None when it fits.

    Of several problems, jsonschema's `best_match` is told: the shallowest, so a missing required
    property comes before a wrong item deep inside. Raises jsonschema's SchemaError when `schema`
    itself is not a valid JSON Schema.
    """
    from jsonschema.exceptions import best_match

    error = best_match(_validator(schema).iter_errors(value))
    return None if error is None else f"{_where(path, error.absolute_path)}: {_problem(error)}"


def _validator(schema: dict[str, Any]) -> Validator:
    """A checked validator for `schema`, cached by the schema's JSON text."""
    key = json.dumps(schema, sort_keys=True, default=str)
    validator = _VALIDATORS.get(key)
    if validator is None:
        from jsonschema.validators import Draft202012Validator, validator_for

        kind = validator_for(schema, default=Draft202012Validator)
        kind.check_schema(schema)
        validator = kind(schema)
        if len(_VALIDATORS) >= _CACHED:
            _VALIDATORS.clear()
        _VALIDATORS[key] = validator
    return validator


def _where(path: str, parts: Iterable[str | int]) -> str:
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if part.isidentifier() else f"[{json.dumps(part)}]"
    return path


def _problem(error: ValidationError) -> str:
    """What is wrong: in onlooker's words for the keywords its schemas use, else jsonschema's."""
    value: Any = error.instance
    rule: Any = error.validator_value
    schema, keyword = error.schema, str(error.validator)
    if keyword == "type":
        names = [rule] if isinstance(rule, str) else list(rule)
        return f"expected {' or '.join(names)}, got {_type_name(value)}"
    if keyword == "const":
        return f"must be {json.dumps(rule)}"
    if keyword == "enum":
        return f"{json.dumps(value)} is not one of {', '.join(json.dumps(v) for v in rule)}"
    if keyword == "required":
        return f"missing required property {next(n for n in rule if n not in value)!r}"
    if keyword == "additionalProperties" and isinstance(schema, dict):
        allowed = list(schema.get("properties", {}))
        patterns = list(schema.get("patternProperties", {}))
        extra = next(
            n for n in value if n not in allowed and not any(re.search(p, n) for p in patterns)
        )
        return f"unexpected property {extra!r} (allowed: {', '.join(allowed)})"
    if keyword in _BOUNDS:
        size = value if keyword in ("minimum", "maximum") else len(value)
        return _BOUNDS[keyword].format(size=size, rule=rule)
    return error.message


def _type_name(value: Any) -> str:
    for name, types in _TYPES.items():  # boolean before integer: True is an int in Python
        if isinstance(value, types):
            return name
    return type(value).__name__
