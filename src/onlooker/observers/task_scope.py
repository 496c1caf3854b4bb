"""The task's scope for Drift: which paths are related to the task as it was given.

Related means under a folder (or top folder below the root) of the task's files, or having a
name, stem or folder that the user's prompts speak of; specs/observers.md says more.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Set
from dataclasses import dataclass, field
from functools import lru_cache

from ..core.events import ToolCall
from .call_paths import activity_paths

NEUTRAL_PREFIXES = ("/tmp/", "/private/tmp/", "/var/folders/", "/private/var/", "/dev/", "/proc/")
"""Scratch and system places: touching them says nothing about the task."""
NEUTRAL_PARTS = frozenset({".claude", ".git", "node_modules", "__pycache__", ".venv", "venv"})
"""Folders of tooling rather than of the task (Claude Code's own files, VCS, environments)."""
# fmt: off
GENERIC_WORDS = frozenset({
    "src", "lib", "libs", "test", "tests", "spec", "specs", "doc", "docs", "main", "index",
    "init", "app", "apps", "core", "util", "utils", "common", "base", "file", "files", "data",
    "tmp", "temp", "bin", "build", "dist", "out", "config", "conf", "setup", "scripts", "script",
    "readme", "users", "home", "projects", "project", "code", "new", "old", "the", "and", "for",
    "with", "from", "this", "that", "py", "js", "ts", "tsx", "jsx", "md", "json", "txt", "yaml",
    "yml", "toml", "cfg", "ini", "html", "css", "sh", "lock",
})
"""Path words too common to tie a path to a prompt."""
# fmt: on
CONVENTIONAL_NAMES = frozenset(
    {"readme", "changelog", "license", "contributing", "makefile", "dockerfile", "agents"}
)
"""File stems a prompt names without their suffix ("the README")."""
_WORD = re.compile(r"[a-z0-9]+")
_NAME = re.compile(r"[\w.-]+")
_PROMPT_PATH = re.compile(r"[\w.@+-]*(?:/[\w.@+-]+)+/?")


@dataclass(frozen=True, slots=True, eq=False)
class TaskScope:
    """What counts as the task's ground: the task's files' folders and the prompts' words."""

    root: str | None
    first_paths: tuple[str, ...] = ()
    folders: frozenset[str] = frozenset()
    """Folders of the task's files."""
    areas: frozenset[str] = frozenset()
    """Their top folders below the project root: a path under one shares a directory with them."""
    words: frozenset[str] = frozenset()
    """Stems of the words of the user's prompts."""
    names: frozenset[str] = frozenset()
    """Stems of the task's files' names."""
    dirs: frozenset[str] = frozenset()
    """Task paths that name a folder (a search's `path`): whatever lies under one is related."""
    by_area: bool = True
    """Does a top folder below the root tie a path to the task (the broad scope) or not (the
    ground, where the folders a path shares with the task's files say nothing either)?"""

    def resolve(self, path: str) -> str | None:
        """The path made absolute and normal; None for paths that say nothing about the task."""
        return _resolve(self.root, path)

    def relative(self, path: str) -> str:
        if self.root and path.startswith(self.root + "/"):
            return path[len(self.root) + 1 :]
        return path

    def area(self, folder: str) -> str | None:
        """The folder's top part one level below the root (below `/a/b` when no root is known)."""
        depth = (self.root.count("/") if self.root and self.root != "/" else 2) + 1
        parts = folder.split("/")
        return "/".join(parts[: depth + 1]) if len(parts) > depth else None

    def verdict(self, call: ToolCall) -> str | None:
        """None when the call names no telling path; '' when related; else an unrelated path."""
        return self.judge(activity_paths(call))

    def judge(self, paths: tuple[str, ...]) -> str | None:
        """`verdict` on the paths a call works on."""
        unrelated = None
        for raw in paths:
            path, related = _judged(self, raw)
            if related:
                return ""
            if path is not None and unrelated is None:
                unrelated = path
        return unrelated

    def related(self, path: str) -> bool:
        return _ties(self, path, self.folders, self.areas, self.names, self.dirs, self.by_area)


def _ties(
    base: TaskScope,
    path: str,
    folders: Set[str],
    areas: Set[str],
    names: Set[str],
    dirs: Set[str],
    by_area: bool = True,
) -> bool:
    """Is `path` in one of `folders`, under one of `areas` or `dirs`, or do the prompts or
    `names` speak of it?

    Without areas, the names of the folders a path shares with the task's files do not tie it:
    `src/notes/sync.py` is not about the task of `src/notes/search.py` for the word `notes`.
    """
    folder, area, stems, _ = _place(base.root, path)
    if folder in folders or area in areas:
        return True
    if any(path.startswith(d + "/") for d in dirs):
        return True
    if not by_area:
        stems = stems - _shared_folder_stems(base, folder, frozenset(folders))
    return not (stems.isdisjoint(base.words) and stems.isdisjoint(names))


@lru_cache(maxsize=4096)
def _shared_folder_stems(base: TaskScope, folder: str, folders: frozenset[str]) -> frozenset[str]:
    """Stems of the folders above `folder` that it shares with one of `folders`."""
    parts = base.relative(folder).split("/")
    shared: set[str] = set()
    for other in folders:
        common = 0
        for mine, theirs in zip(parts, base.relative(other).split("/"), strict=False):
            if mine != theirs:
                break
            common += 1
        shared |= path_stems("/".join(parts[:common]))
    return frozenset(shared)


@lru_cache(maxsize=4096)
def _resolve(root: str | None, path: str) -> str | None:
    if path.startswith("~"):
        return None
    if not path.startswith("/"):
        if root is None:
            return None
        path = posixpath.join(root, path)
    path = posixpath.normpath(path)
    if path == root or path in ("/tmp", "/dev/null"):
        return None
    inside = root is not None and path.startswith(root.rstrip("/") + "/")
    if not inside and path.startswith(NEUTRAL_PREFIXES):  # a project may live in /tmp itself
        return None
    if NEUTRAL_PARTS.intersection(path.split("/")):
        return None
    return path


@lru_cache(maxsize=4096)
def _place(root: str | None, path: str) -> tuple[str, str | None, frozenset[str], frozenset[str]]:
    """A path's folder, its area below `root`, the stems of its words and of its name's."""
    base = TaskScope(root)
    folder = posixpath.dirname(path)
    relative = base.relative(path)
    return folder, base.area(folder), path_stems(relative), path_stems(relative, file_only=True)


@dataclass(slots=True)
class _Building:
    """A scope being put together, one of the task's files at a time.

    The broad scope takes in the top folder below the root of each file (`by_area`); the ground
    does not: in a src layout or a monorepo every path shares `src/` or `packages/`, and a fix
    in one module is no ground for work in all the others.
    """

    bare: TaskScope
    by_area: bool = True
    paths: list[str] = field(default_factory=list)
    folders: set[str] = field(default_factory=set)
    areas: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    dirs: set[str] = field(default_factory=set)

    def add(self, path: str) -> None:
        folder, area, _, names = _place(self.bare.root, path)
        self.paths.append(path)
        self.folders.add(folder)
        if area and self.by_area:
            self.areas.add(area)
        if "." not in posixpath.basename(path):
            self.dirs.add(path)
        self.names |= names

    def related(self, path: str) -> bool:
        return _ties(self.bare, path, self.folders, self.areas, self.names, self.dirs, self.by_area)

    @classmethod
    def again(cls, bare: TaskScope, made: TaskScope) -> _Building:
        """The building that made `made`, to add more to."""
        return cls(
            bare,
            made.by_area,
            list(made.first_paths),
            set(made.folders),
            set(made.areas),
            set(made.names),
            set(made.dirs),
        )

    def done(self) -> TaskScope:
        return TaskScope(
            self.bare.root,
            tuple(self.paths),
            frozenset(self.folders),
            frozenset(self.areas),
            self.bare.words,
            frozenset(self.names),
            frozenset(self.dirs),
            self.by_area,
        )


def task_scope(
    first_prompt: str, first_paths: tuple[str, ...], prompts: tuple[str, ...], root: str | None
) -> TaskScope:
    """The broad scope of a task: its prompts and every one of its first files."""
    return task_scopes(first_prompt, first_paths, prompts, root)[0]


def task_ground(
    first_prompt: str, first_paths: tuple[str, ...], prompts: tuple[str, ...], root: str | None
) -> TaskScope:
    """The narrow scope of a task: its prompts, and those of its first files that hold together."""
    return task_scopes(first_prompt, first_paths, prompts, root)[1]


@lru_cache(maxsize=16)
def task_scopes(
    first_prompt: str, first_paths: tuple[str, ...], prompts: tuple[str, ...], root: str | None
) -> tuple[TaskScope, TaskScope]:
    """The task's broad scope (every first file) and its ground (those that hold together), with
    the words of every prompt so far."""
    scope, ground = _task_files(first_prompt, first_paths, root)
    words = _prompt_words((first_prompt, *prompts))
    return _with_words(scope, words), _with_words(ground, words)


def _with_words(scope: TaskScope, words: frozenset[str]) -> TaskScope:
    """`dataclasses.replace(scope, words=words)`, without its look over the fields."""
    return TaskScope(
        scope.root,
        scope.first_paths,
        scope.folders,
        scope.areas,
        words,
        scope.names,
        scope.dirs,
        scope.by_area,
    )


@lru_cache(maxsize=16)
def _task_files(
    first_prompt: str, first_paths: tuple[str, ...], root: str | None
) -> tuple[TaskScope, TaskScope]:
    """Every first file, and the ground: those of them that hold together with the first prompt.

    The ground starts at the first file the first prompt names, else at the first whose path
    shares a word with it; a later first file joins it only when related to it or to the first
    prompt. What the agent touched first after leaving the task is then not the task's ground.
    When no first file is tied to the prompt, the ground is unknown: it holds no file.

    A task's first files come one at a time: the scopes of all but the newest are most often
    kept, and the newest is added to them, as the whole loop would add it last; when it moves
    the ground's start (the first named file, or the first spoken of), all is done again.
    """
    bare = TaskScope(root.rstrip("/") or "/" if root else None, words=prompt_stems(first_prompt))
    if len(first_paths) < 2:
        return _all_task_files(bare, first_prompt, first_paths)
    scope, ground = _task_files(first_prompt, first_paths[:-1], root)
    newest = bare.resolve(first_paths[-1])
    if newest is None:  # the same first files
        return scope, ground
    named = names_file(first_prompt, newest)
    start = ground.first_paths[0] if ground.first_paths else None
    if (start is None and (named or _spoken_of(bare, newest))) or (
        named and not any(names_file(first_prompt, path) for path in scope.first_paths)
    ):
        return _all_task_files(bare, first_prompt, first_paths)  # the ground starts elsewhere
    broad = _Building.again(bare, scope)
    broad.add(newest)
    if start is not None and newest != start:
        narrow = _Building.again(bare, ground)
        if named or narrow.related(newest):
            narrow.add(newest)
            ground = narrow.done()
    return broad.done(), ground


def _all_task_files(
    bare: TaskScope, first_prompt: str, first_paths: tuple[str, ...]
) -> tuple[TaskScope, TaskScope]:
    """`_task_files`, every first file taken in turn."""
    firsts = [p for p in (bare.resolve(raw) for raw in first_paths) if p]
    scope = _Building(bare)
    for path in firsts:
        scope.add(path)
    ground = _Building(bare, by_area=False)
    named = [path for path in firsts if names_file(first_prompt, path)]
    start = named[0] if named else next((p for p in firsts if _spoken_of(bare, p)), None)
    if start is not None:
        ground.add(start)
        for path in firsts:
            if path != start and (path in named or ground.related(path)):
                ground.add(path)
    return scope.done(), ground.done()


@lru_cache(maxsize=16)
def _prompt_words(texts: tuple[str, ...]) -> frozenset[str]:
    """The stems of every prompt's words (each prompt's are kept: `prompt_stems`). A session's
    prompts most often grow by one since they were last asked for: then only it is added."""
    global _last_words
    before, words = _last_words
    if texts and texts[:-1] == before:
        words = words | prompt_stems(texts[-1])
    else:
        words = frozenset().union(*map(prompt_stems, texts))
    _last_words = (texts, words)
    return words


_last_words: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())
"""The prompts `_prompt_words` was last asked about, and their words."""


def _spoken_of(scope: TaskScope, path: str) -> bool:
    """Does the path share a word with the prompts (its name or a folder's)?"""
    return not _place(scope.root, path)[2].isdisjoint(scope.words)


def names_file(prompt: str, path: str) -> bool:
    """Does the prompt name this file: its name (`setup.md`), or a conventional stem (README)?"""
    name = posixpath.basename(path).lower()
    tokens = _prompt_tokens(prompt)
    if name in tokens:
        return True
    stem = name.split(".", 1)[0]
    return stem in CONVENTIONAL_NAMES and stem in tokens


@lru_cache(maxsize=64)
def _prompt_tokens(prompt: str) -> frozenset[str]:
    """File names and words of a prompt (`setup.md`, `readme`), lower case."""
    tokens = {token.rstrip(".") for token in _NAME.findall(prompt.lower())}
    return frozenset(tokens | set(_WORD.findall(prompt.lower())))


@lru_cache(maxsize=4096)
def _judged(scope: TaskScope, raw: str) -> tuple[str | None, bool]:
    path = scope.resolve(raw)
    return path, path is not None and scope.related(path)


def _stem(word: str) -> str:
    """Words alike up to their first five letters count as one (`model`, `models`, `modelling`)."""
    if len(word) > 5:
        return word[:5]
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


@lru_cache(maxsize=256)
def prompt_stems(text: str) -> frozenset[str]:
    """Stems of the words of a prompt (three letters or more).

    A path in the prompt speaks of its file, not of every folder above it: only its last part
    counts (`src/shipit/http/retry.py` says `retry`, not `shipit`, which every file shares).
    """
    text = _PROMPT_PATH.sub(lambda m: m.group(0).rstrip("/").rsplit("/", 1)[-1], text.lower())
    return frozenset(_stem(w) for w in _WORD.findall(text) if len(w) >= 3)


@lru_cache(maxsize=4096)
def path_stems(path: str, *, file_only: bool = False) -> frozenset[str]:
    """Stems of the telling words of a path: name, stem and folders (only the name if file_only)."""
    parts = path.lower().split("/")
    if file_only:
        parts = parts[-1:]
    words = (w for part in parts for w in _WORD.findall(part))
    return frozenset(_stem(w) for w in words if len(w) >= 3 and w not in GENERIC_WORDS)
