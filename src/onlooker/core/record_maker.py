"""Records made by the thousand, made cheaply: `maker(ToolCall, "tool", "output")` is a function
`make(tool, output)` that gives what `ToolCall(tool=tool, output=output)` gives.

A frozen dataclass's `__init__` sets each field through `object.__setattr__`, and keyword
arguments cost a dict on every call: a replay makes an event for every transcript line that says
something and trigger state after every dispatch, some 50,000 records per 100 MB of transcripts,
at 3 to 9 µs each. A maker takes the named fields in order, sets every field straight into its
slot (the others to their defaults, as `__init__` would) and costs a third of that. Only for
slotted dataclasses without `__post_init__`: it would be skipped (specs/replay.md, "Speed").
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def maker(cls: type[T], *names: str) -> Callable[..., T]:
    """A function taking the fields `names` (in this order, by position) that makes a `cls`
    with them and every other field at its default; TypeError for a class it cannot make."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: only dataclasses without __post_init__ have a maker")
    fields = dataclasses.fields(cls)
    known = {f.name for f in fields}
    unknown = [name for name in names if name not in known]
    if unknown or len(set(names)) != len(names):
        raise TypeError(f"{cls.__name__}: unknown or repeated fields {', '.join(unknown)}")
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = []
    for f in fields:
        slot = getattr(cls, f.name, None)
        if not isinstance(slot, types.MemberDescriptorType):
            raise TypeError(f"{cls.__name__}.{f.name}: not a slot (only slotted dataclasses)")
        env[f"_set_{f.name}"] = slot.__set__
        if f.name in names:
            value = f.name
        elif f.default is not dataclasses.MISSING:
            env[f"_default_{f.name}"] = f.default
            value = f"_default_{f.name}"
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_factory_{f.name}"] = f.default_factory
            value = f"_factory_{f.name}()"
        else:
            raise TypeError(f"{cls.__name__}.{f.name}: no default, so it must be named")
        lines.append(f"    _set_{f.name}(_made, {value})\n")
    source = (
        f"def make({', '.join(names)}):\n    _made = _new(_cls)\n{''.join(lines)}    return _made\n"
    )
    exec(source, env)  # the fields' names are identifiers: checked against the dataclass's own
    make: Callable[..., T] = env["make"]
    make.__qualname__ = make.__name__ = f"make_{cls.__name__}"
    return make
