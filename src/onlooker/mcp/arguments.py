"""Check a tool call's arguments against the tool's JSON input schema, with errors naming the field.

Covers what onlooker's schemas use: object at the root, unknown fields, required, type, enum,
minimum/maximum, minLength, minItems/maxItems and string items. Nested objects are left to the
tool that receives them (the observations tool checks its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import BadArguments

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def check_arguments(schema: Mapping[str, Any], arguments: Any) -> dict[str, Any]:
    """`arguments` as a dict, once it fits `schema`; raises BadArguments otherwise."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise BadArguments("arguments", "must be a JSON object")
    properties: Mapping[str, Any] = schema.get("properties", {})
    unknown = sorted(set(arguments) - set(properties))
    if unknown and not schema.get("additionalProperties", False):
        raise BadArguments(unknown[0], f"unknown argument; allowed: {', '.join(properties)}")
    for name in schema.get("required", ()):
        if arguments.get(name) is None:
            raise BadArguments(name, "is required")
    for name, value in arguments.items():
        _check_depth(name, value)
        if value is not None and name in properties:
            _check(name, properties[name], value)
    return arguments


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


def _check(field: str, schema: Mapping[str, Any], value: Any) -> None:
    kinds = schema.get("type")
    if isinstance(kinds, str):
        kinds = [kinds]
    if kinds and not any(_is(value, kind) for kind in kinds):
        raise BadArguments(field, f"must be {' or '.join(_article(k) for k in kinds)}")
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(str(v) for v in schema["enum"])
        raise BadArguments(field, f"{value!r} is not one of: {allowed}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise BadArguments(field, f"must be {schema['minimum']} or more")
        if "maximum" in schema and value > schema["maximum"]:
            raise BadArguments(field, f"must be {schema['maximum']} or less")
    if isinstance(value, str) and len(value.strip()) < schema.get("minLength", 0):
        raise BadArguments(field, "must not be empty")
    if isinstance(value, list):
        _check_items(field, schema, value)


def _check_items(field: str, schema: Mapping[str, Any], value: list[Any]) -> None:
    least, most = schema.get("minItems"), schema.get("maxItems")
    if least is not None and len(value) < least:
        raise BadArguments(field, f"needs at least {least} item{'s' * (least != 1)}")
    if most is not None and len(value) > most:
        raise BadArguments(field, f"takes at most {most} items, got {len(value)}")
    items = schema.get("items")
    if isinstance(items, Mapping):
        for position, item in enumerate(value):
            _check(f"{field}[{position}]", items, item)


def _is(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    return isinstance(value, _TYPES.get(kind, (object,)))


def _article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
