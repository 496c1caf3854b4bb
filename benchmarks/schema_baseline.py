"""The hand-written JSON Schema checks onlooker had before jsonschema: the schema baseline.

`schema_problem` checked model answers (llm/schema.py), `check_arguments` MCP tool arguments
(mcp/arguments.py); each covered only the keywords onlooker's own schemas used.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from onlooker.mcp.arguments import BadArguments

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


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


# -- tool arguments ---------------------------------------------------------------------------

_MCP_TYPES: dict[str, tuple[type, ...]] = {
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
        if value is not None and name in properties:
            _check_argument(name, properties[name], value)
    return arguments


def _check_argument(field: str, schema: Mapping[str, Any], value: Any) -> None:
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
            _check_argument(f"{field}[{position}]", items, item)


def _is(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    return isinstance(value, _MCP_TYPES.get(kind, (object,)))


def _article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
