"""What one hook input may hold: its size, its nesting, how many values, how long an integer.
Past a limit it is refused with HookInputOverLimit naming the limit (specs/hook-service.md).
"""

from __future__ import annotations

import json
from typing import Any

from ...daemon.client import MAX_INPUT
from ...errors import HookInputOverLimit

MAX_INPUT_BYTES = MAX_INPUT
"""Bytes of one hook input (the hook client refuses a larger one before sending it)."""
MAX_DEPTH = 64
"""Levels of objects and arrays inside one another."""
MAX_VALUES = 100_000
"""Keys, items and scalars in one input, all counted."""
MAX_INTEGER_DIGITS = 30
"""Digits of one integer (Claude Code writes numbers as JavaScript does: at most 21 digits)."""


def load_limited(text: str) -> Any:
    """`text` parsed as JSON, or HookInputOverLimit when it holds more than the limits allow."""
    try:
        data = json.loads(text, parse_int=_integer)
    except RecursionError:
        raise HookInputOverLimit(f"hook input is nested deeper than {MAX_DEPTH} levels") from None
    check_limits(data)
    return data


def check_limits(data: Any) -> None:
    """HookInputOverLimit when `data` is nested deeper than MAX_DEPTH or holds more than
    MAX_VALUES values. Walked without recursion, so no depth can break the walk itself."""
    values = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        values += 1
        if values > MAX_VALUES:
            raise HookInputOverLimit(f"hook input holds more than {MAX_VALUES:,} values")
        if isinstance(item, dict):
            children: Any = item.values()
            values += len(item)  # the keys
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            raise HookInputOverLimit(f"hook input is nested deeper than {MAX_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)


def _integer(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise HookInputOverLimit(
            f"hook input has an integer of {len(digits.lstrip('-')):,} digits; "
            f"at most {MAX_INTEGER_DIGITS} are taken"
        )
    return int(digits)
