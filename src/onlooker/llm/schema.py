"""Model answers as JSON: a lenient parse, then a check against the JSON schema that was asked for.

Small models wrap JSON in code fences, put raw newlines inside strings and keep talking after the
closing brace; `parse_json` accepts all of that. The checker covers the subset of JSON Schema that
onlooker's schemas use: type, properties, required, additionalProperties, items, enum, const,
minItems/maxItems, minLength/maxLength, minimum/maximum. Other keywords are ignored.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .model import InvalidOutput

__all__ = ["check", "parse_json", "schema_problem"]

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_DECODER = json.JSONDecoder(strict=False)  # strict=False lets raw control characters into strings

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


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
    """Where `value` first fails `schema`, as `path: what is wrong`; None when it fits."""
    expected = schema.get("type")
    if expected is not None:
        names = [expected] if isinstance(expected, str) else list(expected)
        if not any(_is_type(value, name) for name in names):
            return f"{path}: expected {' or '.join(names)}, got {_type_name(value)}"
    if "const" in schema and value != schema["const"]:
        return f"{path}: must be {json.dumps(schema['const'])}"
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(json.dumps(v) for v in schema["enum"])
        return f"{path}: {json.dumps(value)} is not one of {allowed}"
    if isinstance(value, dict):
        return _object_problem(value, schema, path)
    if isinstance(value, list):
        return _array_problem(value, schema, path)
    if isinstance(value, str):
        return _length_problem(len(value), schema, path, "characters")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{path}: {value} is below the minimum {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{path}: {value} is above the maximum {schema['maximum']}"
    return None


def _object_problem(value: dict[str, Any], schema: dict[str, Any], path: str) -> str | None:
    properties: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            return f"{path}: missing required property {name!r}"
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        where = f"{path}.{name}" if name.isidentifier() else f"{path}[{json.dumps(name)}]"
        if name in properties:
            problem = schema_problem(item, properties[name], where)
        elif extra is False:
            return f"{path}: unexpected property {name!r} (allowed: {', '.join(properties)})"
        elif isinstance(extra, dict):
            problem = schema_problem(item, extra, where)
        else:
            problem = None
        if problem:
            return problem
    return None


def _array_problem(value: list[Any], schema: dict[str, Any], path: str) -> str | None:
    problem = _length_problem(len(value), schema, path, "items", "Items")
    if problem:
        return problem
    items = schema.get("items")
    if isinstance(items, dict):
        for index, item in enumerate(value):
            problem = schema_problem(item, items, f"{path}[{index}]")
            if problem:
                return problem
    return None


def _length_problem(
    size: int, schema: dict[str, Any], path: str, unit: str, key: str = "Length"
) -> str | None:
    low, high = schema.get(f"min{key}"), schema.get(f"max{key}")
    if low is not None and size < low:
        return f"{path}: {size} {unit}, fewer than the minimum {low}"
    if high is not None and size > high:
        return f"{path}: {size} {unit}, more than the maximum {high}"
    return None


def _is_type(value: Any, name: str) -> bool:
    if name not in _TYPES:
        return True  # a type this checker does not know is not held against the answer
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES[name])


def _type_name(value: Any) -> str:
    for name, types in _TYPES.items():
        if _is_type(value, name) and isinstance(value, types):
            return name
    return type(value).__name__
