"""A config file read for a live session, failing safe (specs/config.md, "Fail safe").

A problem turns off only the section it is in: that section takes its defaults and every other
section is read as written. A top-level key that is not a section is left out. A file that cannot
be read at all (not YAML, not a mapping, PyYAML not installed) gives the defaults everywhere. The
problems are kept, to be told to the person.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .document import ConfigInvalid, Problem, compose
from .project import ProjectConfig
from .schema import TOP_KEYS, read_document

if TYPE_CHECKING:
    import yaml

PYYAML = (
    "reading a config file needs PyYAML, which is not installed: pip install 'onlooker[config]'"
)


@dataclass(frozen=True, slots=True)
class Tolerated:
    """A config as a session runs it, and what was wrong with the file."""

    config: ProjectConfig
    problems: tuple[str, ...] = ()
    """`FILE:LINE: KEY: what is allowed`, one a problem, in file order."""
    defaulted: tuple[str, ...] = ()
    """The sections that took their defaults (`*` for all of them)."""


def load_tolerant(path: Path, root: Path) -> Tolerated:
    """Read `path` for the project at `root`, each section with a problem at its defaults."""
    defaults = ProjectConfig(root=root.absolute(), path=path.absolute())
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Tolerated(defaults, (f"{path}: cannot read the config file: {exc}",), ("*",))
    try:
        import yaml  # noqa: F401
    except ImportError:
        return Tolerated(defaults, (f"{path}: {PYYAML}",), ("*",))
    file = str(path)
    try:
        node = compose(text, file)
        return Tolerated(_read(node, file, root, path))
    except ConfigInvalid as exc:
        problems = exc.problems
    except ConfigError as exc:
        return Tolerated(defaults, (str(exc),), ("*",))
    sections = {_section(p) for p in problems}
    if "" in sections or node is None:
        return Tolerated(defaults, tuple(map(str, problems)), ("*",))
    kept = _without(node, sections)
    try:
        config = _read(kept, file, root, path)
    except ConfigError:  # what is left still does not validate: take no chances
        return Tolerated(defaults, tuple(map(str, problems)), ("*",))
    bad = tuple(s for s in TOP_KEYS if s in sections)
    return Tolerated(config, tuple(map(str, problems)), bad)


def _read(node: yaml.Node | None, file: str, root: Path, path: Path) -> ProjectConfig:
    return read_document(node, file=file, root=root.absolute(), path=path.absolute())


def _section(problem: Problem) -> str:
    """The top-level key a problem is under ('' for the document as a whole)."""
    return problem.key.split(".", 1)[0].split("[", 1)[0]


def _without(node: yaml.Node, sections: set[str]) -> yaml.Node:
    """The document without the sections that have problems and without keys that are not
    sections."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return node
    kept = [
        (key, value)
        for key, value in node.value
        if isinstance(key, yaml.ScalarNode) and key.value in TOP_KEYS and key.value not in sections
    ]
    return yaml.MappingNode(node.tag, kept, node.start_mark, node.end_mark, node.flow_style)
