"""A YAML config document read node by node, keeping line numbers, collecting every problem.

The YAML is composed (not constructed) so each value keeps its line; a `Reader` checks values
against what is allowed and records a `Problem` (file, line, key path, what is allowed) instead of
stopping at the first.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:
    import yaml

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_STR = "tag:yaml.org,2002:str"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a config file."""

    file: str
    line: int
    """1-based; 0 when the problem is not at one place."""
    key: str
    """The key path (`behaviors[0].config.execution.max_concurrent`); '' for the document."""
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "key": self.key, "message": self.message}


class ConfigInvalid(ConfigError):
    """A config file did not validate; `problems` lists everything wrong, in file order."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(sorted(problems, key=lambda p: (p.line, p.key)))
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} in the onlooker config"
        super().__init__("\n".join([head + ":", *(f"  {p}" for p in self.problems)]))


MAXIMUM = 1_000_000.0
"""The largest number a setting takes (seconds, minutes, thresholds): past it, a value is a typo,
and clocks and timers overflow."""


def compose(text: str, file: str) -> yaml.Node | None:
    """The document's node tree (None for an empty file); a YAML syntax error names its line."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when built with it
    try:
        return yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        what = " ".join(str(part) for part in (exc.context, exc.problem) if part)
        raise ConfigInvalid([Problem(file, line, "", f"not valid YAML: {what}")]) from None
    except yaml.YAMLError as exc:
        raise ConfigInvalid([Problem(file, 0, "", f"not valid YAML: {exc}")]) from None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)` when a choice is close to `word`, else ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def line_of(node: yaml.Node | None) -> int:
    return node.start_mark.line + 1 if node is not None else 0


@dataclass
class Reader:
    """Typed reads of nodes; each wrong value becomes a Problem and reads as None."""

    file: str
    problems: list[Problem] = field(default_factory=list)

    def problem(self, node: yaml.Node | int | None, key: str, message: str) -> None:
        line = node if isinstance(node, int) else line_of(node)
        self.problems.append(Problem(self.file, line, key, message))

    def mapping(
        self,
        node: yaml.Node | None,
        key: str,
        allowed: Sequence[str] | None = None,
        hints: dict[str, str] | None = None,
    ) -> dict[str, yaml.Node] | None:
        """A mapping's values by key; unknown keys (when `allowed` is given) are problems, told
        with `hints[key]` when there is one."""
        import yaml

        if node is None or _is_null(node):
            return {}
        if not isinstance(node, yaml.MappingNode):
            self.problem(node, key, f"must be a mapping (key: value), got {_shown(node)}")
            return None
        values: dict[str, yaml.Node] = {}
        for key_node, value in node.value:
            name = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            path = _join(key, str(name))
            if not isinstance(name, str) or key_node.tag != _STR:
                self.problem(key_node, key, f"keys must be names, got {_shown(key_node)}")
            elif name in values:
                self.problem(
                    key_node, path, f"appears twice (first on line {line_of(values[name])})"
                )
            elif allowed is not None and name not in allowed:
                hint = (hints or {}).get(name) or did_you_mean(name, allowed)
                self.problem(key_node, path, f"unknown key{hint}; allowed: {', '.join(allowed)}")
            else:
                values[name] = value
        return values

    def sequence(self, node: yaml.Node | None, key: str) -> list[yaml.Node] | None:
        import yaml

        if node is None or _is_null(node):
            return []
        if not isinstance(node, yaml.SequenceNode):
            self.problem(node, key, f"must be a list, got {_shown(node)}")
            return None
        return list(node.value)

    def string(self, node: yaml.Node | None, key: str, default: str | None = None) -> str | None:
        if node is None:
            return default
        if not _scalar(node, _STR, _INT, _FLOAT) or not str(node.value).strip():
            self.problem(node, key, f"must be a non-empty text, got {_shown(node)}")
            return None
        return str(node.value)

    def strings(self, node: yaml.Node | None, key: str) -> tuple[str, ...] | None:
        """A list of texts; a single text counts as a list of one."""
        if node is not None and _scalar(node, _STR):
            return (str(node.value),)
        items = self.sequence(node, key)
        if items is None:
            return None
        found = [self.string(item, f"{key}[{i}]") for i, item in enumerate(items)]
        return None if None in found else tuple(s for s in found if s is not None)

    def choice(
        self,
        node: yaml.Node | None,
        key: str,
        choices: Sequence[str],
        default: str | None = None,
        aliases: dict[str, str] | None = None,
    ) -> str | None:
        if node is None:
            return default
        value = node.value if _scalar(node, _STR) else None
        aliases = aliases or {}
        if isinstance(value, str) and (value in choices or value in aliases):
            return aliases.get(value, value)
        hint = did_you_mean(value, [*choices, *aliases]) if isinstance(value, str) else ""
        self.problem(
            node, key, f"{_shown(node)} is not allowed{hint}; one of: {', '.join(choices)}"
        )
        return None

    def boolean(self, node: yaml.Node | None, key: str, default: bool) -> bool | None:
        if node is None:
            return default
        if not _scalar(node, _BOOL):
            self.problem(node, key, f"must be true or false, got {_shown(node)}")
            return None
        return bool(_constructed(node))

    def integer(
        self, node: yaml.Node | None, key: str, default: int | None, minimum: int = 1
    ) -> int | None:
        if node is None:
            return default
        value = _constructed(node) if _scalar(node, _INT) else None
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            self.problem(
                node, key, f"must be a whole number of at least {minimum}, got {_shown(node)}"
            )
            return None
        return value

    def number(
        self,
        node: yaml.Node | None,
        key: str,
        default: float | None,
        *,
        positive: bool = True,
        maximum: float = MAXIMUM,
    ) -> float | None:
        if node is None:
            return default
        value = _constructed(node) if _scalar(node, _INT, _FLOAT) else None
        if (
            not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
            or (positive and value == 0)
            or value > maximum
        ):
            allowed = "a number above 0" if positive else "a number of at least 0"
            self.problem(
                node, key, f"must be {allowed} and at most {maximum:g}, got {_shown(node)}"
            )
            return None
        return float(value)

    def plain(self, node: yaml.Node | None, key: str) -> Any:
        """Any YAML value as Python data (for free-form fields such as `metadata`)."""
        if node is None:
            return None
        return _constructed(node)


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def _is_null(node: yaml.Node) -> bool:
    return node.tag == _NULL


def _scalar(node: yaml.Node, *tags: str) -> bool:
    import yaml

    return isinstance(node, yaml.ScalarNode) and node.tag in tags


def _constructed(node: yaml.Node) -> Any:
    import yaml

    return yaml.SafeLoader("").construct_object(node, deep=True)


def _shown(node: yaml.Node) -> str:
    """How a value reads in a message: `'ten'`, `a list`, `a mapping`, `nothing`."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if _is_null(node):
        return "nothing"
    text = str(node.value)
    return repr(text if len(text) <= 40 else text[:37] + "...")
