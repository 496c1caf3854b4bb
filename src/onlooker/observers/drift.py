"""Drift: recent activity concentrated on paths unrelated to the task as it was given.

Related means sharing a directory below the project root with the first files touched, or having a
name, stem or folder that the user's prompts speak of. A soft signal: low first, medium if it stays.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from ..core.assessment import Assessment, Finding, Severity
from ..core.events import ToolCall, UserPrompt
from ..core.observer import ObserverContext
from ..core.session import TaskContext
from ..core.triggers import Trigger
from .episodes import cite, require_counts

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
SOURCE_SUFFIXES = frozenset({
    "py", "pyi", "js", "jsx", "ts", "tsx", "mjs", "cjs", "json", "md", "rst", "txt", "toml",
    "yaml", "yml", "cfg", "ini", "sh", "rs", "go", "java", "kt", "c", "h", "cc", "cpp", "hpp",
    "rb", "php", "html", "css", "scss", "sql", "ipynb", "lock", "xml", "csv",
})
"""Suffixes that make a bare word in a shell command a file name."""
# fmt: on
_WORD = re.compile(r"[a-z0-9]+")
_SHELL_SPLIT = re.compile(r"[\s;|&<>()`'\"=]+")
_FILE_TOKEN = re.compile(r"^[\w.@+-]+\.([A-Za-z0-9]{1,6})$")


@dataclass(frozen=True, slots=True)
class DriftObserver:
    """Note when most recent path-bearing calls are unrelated to the task's initial context."""

    window: int = 20
    """Recent tool calls that name paths, judged together."""
    unrelated_share: float = 0.7
    """Share of them that must be unrelated to the task."""
    trigger: Trigger = field(default_factory=lambda: Trigger(every_n_calls=10))

    def __post_init__(self) -> None:
        require_counts(self)
        if not 0 < self.unrelated_share <= 1:
            raise ValueError(f"unrelated_share must be in (0, 1], got {self.unrelated_share}")

    @property
    def name(self) -> str:
        return "Drift"

    def should_run(self, ctx: ObserverContext) -> bool:
        task = ctx.session[TaskContext].latest()
        return task is not None and bool(task.first_paths) and ctx.tool_call_count >= self.window

    def observe(self, ctx: ObserverContext) -> Assessment | None:
        task = ctx.session[TaskContext].latest()
        if task is None or not task.first_paths:
            return None
        root = str(ctx.project_root) if ctx.project_root else None
        prompts = tuple(prompt.text for prompt in ctx.session[UserPrompt].all())
        scope = task_scope(task.first_prompt, task.first_paths, prompts, root)
        # Newest first; stop as soon as too many related calls rule a drift out.
        allowed = self.window - math.ceil(self.unrelated_share * self.window)
        related = 0
        current: list[tuple[int, str]] = []
        calls = ctx.session[ToolCall].newest_first()
        for call in calls:
            verdict = scope.verdict(call)
            if verdict is None:
                continue
            if not verdict:
                related += 1
                if related > allowed:
                    return None
            current.append((call.index, verdict))
            if len(current) == self.window:
                break
        else:  # fewer calls than a window name files
            return None
        level = self._level(ctx, current[-1][0], lambda: self._oldest(scope, calls))
        if level is None:
            return None
        away = sorted((index, path) for index, path in current if path)
        return self._assessment(scope, len(current), away, level)

    def _level(
        self, ctx: ObserverContext, oldest: int, before: Callable[[], int | None]
    ) -> Severity | None:
        """Low for a new drift; medium once when it outlasts a whole window after being told."""
        last = ctx.last_assessment
        if last is None:
            return "low"
        if last.call_index >= oldest:
            return None
        earlier = before()
        if earlier is not None and last.call_index >= earlier:
            return "medium" if last.severity == "low" else None
        return "low"

    def _oldest(self, scope: TaskScope, calls: Iterator[ToolCall]) -> int | None:
        """The oldest call of the window before the current one (`calls` goes on from there)."""
        oldest = None
        seen = 0
        for call in calls:
            if scope.verdict(call) is not None:
                oldest = call.index
                seen += 1
                if seen == self.window:
                    break
        return oldest

    def _assessment(
        self, scope: TaskScope, judged: int, away: list[tuple[int, str]], level: Severity
    ) -> Assessment:
        share = round(100 * len(away) / judged)
        places = _top_places(scope, [path for _, path in away])
        anchor = ", ".join(scope.relative(p) for p in scope.first_paths[:3])
        finding = Finding(
            content=(
                f"{len(away)} of the last {judged} calls that name files work on paths "
                f"unrelated to the task's first files ({anchor}): mostly {places}."
            ),
            category="drift",
            evidence=cite([index for index, _ in away], 10),
            severity=level,
            source_type="mixed",
            metadata={"share": share},
        )
        persists = "still " if level != "low" else ""
        return Assessment(
            observer_name=self.name,
            summary=f"Recent work is {persists}mostly away from the files the task started with.",
            findings=(finding,),
            suggestions=(
                f"{share}% of recent file activity is outside the task's initial context; "
                "this is fine if the task required it, otherwise the original goal may be waiting.",
            ),
            severity=level,
        )


@dataclass(frozen=True, slots=True)
class TaskScope:
    """What counts as the task's ground: the first files' folders and the prompts' words."""

    root: str | None
    first_paths: tuple[str, ...] = ()
    folders: frozenset[str] = frozenset()
    """Folders of the first files."""
    areas: frozenset[str] = frozenset()
    """Their top folders below the project root: a path under one shares a directory with them."""
    words: frozenset[str] = frozenset()

    def resolve(self, path: str) -> str | None:
        """The path made absolute and normal; None for paths that say nothing about the task."""
        if path.startswith("~"):
            return None
        if not path.startswith("/"):
            if self.root is None:
                return None
            path = posixpath.join(self.root, path)
        path = posixpath.normpath(path)
        if path == self.root or path.startswith(NEUTRAL_PREFIXES) or path in ("/tmp", "/dev/null"):
            return None
        if NEUTRAL_PARTS.intersection(path.split("/")):
            return None
        return path

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
        unrelated = None
        for raw in activity_paths(call):
            path, related = _judged(self, raw)
            if related:
                return ""
            if path is not None and unrelated is None:
                unrelated = path
        return unrelated

    def related(self, path: str) -> bool:
        folder = posixpath.dirname(path)
        if folder in self.folders or self.area(folder) in self.areas:
            return True
        return not path_stems(self.relative(path)).isdisjoint(self.words)


@lru_cache(maxsize=16)
def task_scope(
    first_prompt: str, first_paths: tuple[str, ...], prompts: tuple[str, ...], root: str | None
) -> TaskScope:
    """The scope of a task from its first prompt and files, the later prompts and the root."""
    bare = TaskScope(root.rstrip("/") or "/" if root else None)
    firsts = tuple(p for p in (bare.resolve(p) for p in first_paths) if p)
    words: set[str] = set()
    for text in (first_prompt, *prompts):
        words |= prompt_stems(text)
    for path in firsts:
        words |= path_stems(bare.relative(path), file_only=True)
    folders = frozenset(posixpath.dirname(p) for p in firsts)
    areas = frozenset(a for a in map(bare.area, folders) if a)
    return TaskScope(bare.root, firsts, folders, areas, frozenset(words))


@lru_cache(maxsize=4096)
def _judged(scope: TaskScope, raw: str) -> tuple[str | None, bool]:
    path = scope.resolve(raw)
    return path, path is not None and scope.related(path)


def activity_paths(call: ToolCall) -> tuple[str, ...]:
    """Paths a call works on: its file arguments, else obvious paths in a shell command."""
    if call.paths:
        return call.paths
    command = call.input.get("command")
    return command_paths(command) if isinstance(command, str) else ()


@lru_cache(maxsize=1024)
def command_paths(command: str, limit: int = 5) -> tuple[str, ...]:
    """Obvious file paths in a shell command: `/abs/x`, `./x`, `dir/file.py`, `file.py`."""
    found: list[str] = []
    for token in _SHELL_SPLIT.split(command):
        if not token or token.startswith("-") or "://" in token or "*" in token or "$" in token:
            continue
        token = token.split("::", 1)[0].rstrip(",:")
        is_path = token.startswith(("/", "./", "../")) and len(token) > 1
        if not is_path:
            match = _FILE_TOKEN.match(token.rsplit("/", 1)[-1]) if token else None
            is_path = match is not None and match.group(1).lower() in SOURCE_SUFFIXES
        if is_path and token not in found:
            found.append(token)
            if len(found) == limit:
                break
    return tuple(found)


def _stem(word: str) -> str:
    """Words alike up to their first five letters count as one (`model`, `models`, `modelling`)."""
    if len(word) > 5:
        return word[:5]
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


@lru_cache(maxsize=256)
def prompt_stems(text: str) -> frozenset[str]:
    """Stems of the words of a prompt (three letters or more)."""
    return frozenset(_stem(w) for w in _WORD.findall(text.lower()) if len(w) >= 3)


@lru_cache(maxsize=4096)
def path_stems(path: str, *, file_only: bool = False) -> frozenset[str]:
    """Stems of the telling words of a path: name, stem and folders (only the name if file_only)."""
    parts = path.lower().split("/")
    if file_only:
        parts = parts[-1:]
    words = (w for part in parts for w in _WORD.findall(part))
    return frozenset(_stem(w) for w in words if len(w) >= 3 and w not in GENERIC_WORDS)


def _top_places(scope: TaskScope, paths: list[str], limit: int = 2) -> str:
    counts: dict[str, int] = {}
    for path in paths:
        place = posixpath.dirname(scope.relative(path)) or scope.relative(path)
        counts[place] = counts.get(place, 0) + 1
    top = sorted(counts, key=lambda p: -counts[p])[:limit]
    return ", ".join(f"{place} ({counts[place]})" for place in top)
