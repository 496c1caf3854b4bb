"""Project configs kept loaded for the hook path, keyed by the file's (path, mtime, size).

A lookup costs a dictionary hit and a stat or two; the file is read and validated again only
when it changed. A config with problems fails safe (tolerant.py): each section with a problem takes
its defaults and the rest runs as written; the problems are logged once per version of the file
and kept (`Loaded.problems`) for the session's notice to the person.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from ..core.observer import Observer
from ..memory.settings import MemorySettings
from ..reviewers.config import ReviewSetup
from ..scoring.settings import ScoringSettings
from ..store.home import project_root
from .loading import CONFIG_FILES
from .project import ProjectConfig
from .tolerant import load_tolerant

log = logging.getLogger("onlooker.config")
log.addHandler(logging.NullHandler())

FileKey = tuple[str, int, int]
"""A config file's identity for the cache: path, mtime in ns, size."""

#: Working directories whose project root is remembered.
KNOWN_DIRECTORIES = 256


@dataclass(frozen=True, slots=True)
class Loaded:
    """A project's config as the hook path uses it (None: nothing could be used)."""

    root: Path
    key: FileKey | None
    config: ProjectConfig | None
    problem: str = ""
    """What is wrong with the file, one problem a line ('' when nothing is)."""
    defaulted: tuple[str, ...] = ()
    """The sections that took their defaults because of a problem (`*`: all of them)."""

    @property
    def problems(self) -> tuple[str, ...]:
        """`FILE:LINE: KEY: what is allowed`, one a problem."""
        return tuple(self.problem.splitlines()) if self.problem else ()

    @property
    def observers(self) -> tuple[Observer, ...]:
        """The trajectory observers to run: none while the config is invalid."""
        return self.config.trajectory.observers if self.config else ()

    @property
    def deadline(self) -> timedelta | None:
        return self.config.trajectory.deadline if self.config else None

    @property
    def memory(self) -> MemorySettings | None:
        """The project's memory settings; None when it has no config file (the caller's
        defaults apply), off while the config is invalid."""
        if self.config is None:
            return MemorySettings(enabled=False) if self.key is not None else None
        return self.config.memory if self.config.path is not None else None

    @property
    def scoring(self) -> ScoringSettings:
        """The project's scoring settings: off while the config is invalid or sets no model."""
        return self.config.scoring if self.config else ScoringSettings(enabled=False)

    @property
    def review_setup(self) -> ReviewSetup | None:
        """The reviewers to run: none while the config is invalid."""
        return self.config.review_setup if self.config else None


@dataclass
class ProjectConfigs:
    """Loaded project configs, looked up by working directory."""

    roots: OrderedDict[str, Path] = field(default_factory=OrderedDict)
    loaded: dict[Path, Loaded] = field(default_factory=dict)
    overrides: dict[str, Any] = field(default_factory=dict)
    """ProjectConfig fields set by the host rather than the file (an Amplifier module's own
    hooks-observations config: its reviewers, hooks, execution, issue filing)."""

    def lookup(self, cwd: str) -> Loaded:
        """The config for `cwd` (the same object while its file is unchanged)."""
        root = self._root(cwd)
        key = file_key(root)
        known = self.loaded.get(root)
        if known is not None and known.key == key:
            return known
        fresh = self._load(root, key)
        self.loaded[root] = fresh
        return fresh

    def reviewers(self, cwd: str) -> ReviewSetup | None:
        """The project's reviewers and their execution (the hook handler's `reviewers` seam)."""
        return self.lookup(cwd).review_setup

    def _root(self, cwd: str) -> Path:
        root = self.roots.get(cwd)
        if root is None:
            root = project_root(cwd or ".")
            self.roots[cwd] = root
            if len(self.roots) > KNOWN_DIRECTORIES:
                self.roots.popitem(last=False)
        return root

    def _load(self, root: Path, key: FileKey | None) -> Loaded:
        if key is None:
            return Loaded(
                root, None, dataclasses.replace(ProjectConfig(root=root), **self.overrides)
            )
        found = load_tolerant(Path(key[0]), root)
        config = dataclasses.replace(found.config, **self.overrides)
        if found.problems:
            sections = ", ".join(found.defaulted) if found.defaulted != ("*",) else "every section"
            log.warning("config %s has problems; %s use the defaults, the rest runs: %s", key[0],
                        sections or "no section", " | ".join(found.problems))  # fmt: skip
        return Loaded(root, key, config, "\n".join(found.problems), found.defaulted)


def file_key(root: Path) -> FileKey | None:
    """(path, mtime_ns, size) of the project's config file, None when there is none."""
    for name in CONFIG_FILES:
        path = os.path.join(root, name)
        try:
            stat = os.stat(path)
        except OSError:
            continue
        return (path, stat.st_mtime_ns, stat.st_size)
    return None
