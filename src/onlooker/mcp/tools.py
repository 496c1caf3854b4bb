"""The tools behind `onlooker mcp`, callable without the MCP SDK: name + arguments -> Answer.

Every answer is a JSON object (`data`) and the text an agent reads; a refused call is an answer
with `error` set and a message naming the argument at fault, never an exception: even a failure
nobody foresaw comes back as a refusal naming the tool (and is logged), so the server stays up.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import BadArguments, OnlookerError, RefusedPath
from ..memory import VectorSide
from ..memory._vector_search import memory_vectors
from ..store import ObservationsTool, Store, StoreError
from ..text.redact import redact_value
from .arguments import check_arguments
from .observer import run_observer_tool
from .observer_specs import OBSERVER_TOOLS
from .read import read_transcript_lines
from .search import SearchRequest, get_items, search_items
from .tool_specs import TOOLS, ToolSpec
from .transcript_roots import Root, transcript_roots

log = logging.getLogger("onlooker.mcp")
_OBSERVER_NAMES = frozenset(spec.name for spec in OBSERVER_TOOLS)


@dataclass(frozen=True, slots=True)
class Answer:
    """What one tool call returns: structured data, its text, and whether it was refused."""

    data: dict[str, Any]
    text: str
    error: bool = False

    @classmethod
    def refused(cls, message: str, field: str | None = None) -> Answer:
        data: dict[str, Any] = {"status": "error", "error": message}
        if field is not None:
            data["field"] = field
        return cls(data, message, True)

    @classmethod
    def of(cls, data: dict[str, Any]) -> Answer:
        text = json.dumps(data, indent=2, ensure_ascii=False)
        return cls(data, text, data.get("status") == "error")


@dataclass(slots=True)
class Tools:
    """The tools over one data home, acting for one project (and optionally a session)."""

    home: Path
    project: str
    session_id: str = ""
    roots: tuple[Root, ...] = ()
    vectors: VectorSide | Literal["auto"] | None = "auto"
    """Vector search over memories (mode vector/both): "auto" uses the local embeddings when the
    extra is installed; None searches memories by text only."""
    root: Path | None = None
    """The project folder (its config, instructions and agent prompts) of the observer tools;
    None: the current directory."""
    _store: Store | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.roots = self.roots or transcript_roots(self.home)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return TOOLS

    @property
    def store(self) -> Store:
        """The store, opened on first use (so a server starts without touching the data home)."""
        if self._store is None:
            self._store = Store(self.home)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def call(self, name: str, arguments: Any) -> Answer:
        """Run tool `name`; bad arguments, store failures and anything unforeseen come back as
        refused answers."""
        spec = next((s for s in TOOLS if s.name == name), None)
        if spec is None:
            known = ", ".join(s.name for s in TOOLS)
            return Answer.refused(f"unknown tool {name!r}; tools: {known}", "name")
        try:
            checked = check_arguments(spec.input_schema, arguments)
            return self._handler(name)(checked)
        except BadArguments as exc:
            return Answer.refused(f"{name}: {exc}", exc.field)
        except RefusedPath as exc:
            return Answer.refused(f"read: {exc}", "path")
        except (StoreError, OnlookerError) as exc:
            return Answer.refused(f"{name}: {exc}")
        except Exception as exc:  # the last line: a tool call never takes the server down
            log.exception("tool %s failed on %r", name, redact_value(arguments))
            return Answer.refused(f"{name}: failed unexpectedly ({type(exc).__name__}: {exc})")

    def _handler(self, name: str) -> Callable[[dict[str, Any]], Answer]:
        if name in _OBSERVER_NAMES:
            return lambda arguments: self._observer(name, arguments)
        return {
            "search": self._search,
            "get_observations": self._get_observations,
            "read": self._read,
            "observations": self._observations,
        }[name]

    def _search(self, arguments: dict[str, Any]) -> Answer:
        request = SearchRequest.from_arguments(arguments)
        if not request.projects and not arguments.get("all_projects") and self.project:
            request = dataclasses.replace(request, projects=(self.project,))
        if self.vectors == "auto":
            self.vectors = memory_vectors(self.store)
        return Answer.of({"status": "ok", **search_items(self.store, request, self.vectors)})

    def _get_observations(self, arguments: dict[str, Any]) -> Answer:
        ids = [i.strip() if isinstance(i, str) else i for i in arguments["ids"]]
        project = None if arguments.get("all_projects") else self.project or None
        return Answer.of({"status": "ok", **get_items(self.store, ids, project=project)})

    def _read(self, arguments: dict[str, Any]) -> Answer:
        start = arguments.get("startLine") or 1
        end = arguments.get("endLine")
        if end is not None and end < start:
            raise BadArguments("endLine", f"({end}) must not be before startLine ({start})")
        reading = read_transcript_lines(
            arguments["path"],
            self.roots,
            start_line=start,
            end_line=end,
            raw=arguments.get("format") == "raw",
        )
        data = {"status": "ok", **reading.to_dict()}
        span = f"lines {reading.start_line}-{reading.end_line} of {reading.total_lines}"
        more = f"\n\n(more from line {reading.next_start_line})" if reading.next_start_line else ""
        text = f"# {reading.path} ({span})\n\n{reading.text}{more}"
        return Answer({**data, "text": reading.text}, text)

    def _observer(self, name: str, arguments: dict[str, Any]) -> Answer:
        from ..config import load_project
        from ..scoring import ObserverCommands

        config = load_project(self.root or Path.cwd())
        commands = ObserverCommands(self.store, self.project, config.root, config.scoring)
        answer = run_observer_tool(commands, name, arguments)
        return Answer({"status": "ok", **answer.data}, answer.text)

    def _observations(self, arguments: dict[str, Any]) -> Answer:
        tool = ObservationsTool(self.store, project=self.project, session_id=self.session_id)
        return Answer.of(tool(arguments))
