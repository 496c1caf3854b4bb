"""The MCP tools onlooker serves: names, descriptions and JSON input schemas (specs/mcp.md); the
observer tools' are in `observer_specs`.

The schemas are the single statement of what each tool accepts: `arguments.check_arguments`
enforces them before a tool runs.
"""

from __future__ import annotations

from ..core.assessment import SEVERITIES
from ..store.query import ORDER, STATUSES
from ..store.tool import MAX_LIST_LIMIT, REQUEST_FIELDS, SOURCE_TYPES
from ._tool_spec import ToolSpec as ToolSpec
from .observer_specs import OBSERVER_TOOLS

SEARCH_MODES = ("both", "text", "vector")
MAX_SEARCH_LIMIT = 50
MAX_IDS = 20
MAX_READ_LINES = 500
DEFAULT_READ_LINES = 200
MAX_INTEGER = 2**63 - 1
"""The largest integer SQLite stores (signed 64-bit): the bound of ids, line numbers, limits."""


_TIME = "ISO 8601 date or time (2026-11-23, 2026-11-23T09:30:00Z); a time without a zone is UTC."
_STRINGS = {"type": "array", "items": {"type": "string", "minLength": 1}}

SEARCH = ToolSpec(
    name="search",
    title="Search memory and observations",
    description=(
        "Search what onlooker remembers across sessions: memories extracted from past sessions "
        "and observations (findings) its observers recorded. Returns compact hits (id, kind, "
        "title, project, timestamp) best first; pass the ids to get_observations for the full "
        "text. Filter with after/before, projects and files (a hit matches when it mentions one "
        "of the paths)."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "What to look for."},
            "mode": {
                "type": "string",
                "enum": list(SEARCH_MODES),
                "default": "both",
                "description": "text: full-text; vector: memories by meaning (needs the "
                "embeddings extra); both: a hybrid rank of the two (text alone when vectors are "
                "not available). Observations are always searched by text.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_SEARCH_LIMIT,
                "default": 10,
                "description": "Most hits to return.",
            },
            "after": {"type": "string", "description": f"Only items from this time on. {_TIME}"},
            "before": {"type": "string", "description": f"Only items before this time. {_TIME}"},
            "projects": {
                **_STRINGS,
                "description": "Only these projects (default: the current project).",
            },
            "all_projects": {
                "type": "boolean",
                "default": False,
                "description": "Search every project, not only the current one.",
            },
            "files": {
                **_STRINGS,
                "description": "Only items that mention one of these file paths (or the end of "
                "one, like a file name).",
            },
            "kinds": {
                "type": "array",
                "items": {"type": "string", "enum": ["memory", "observation"]},
                "minItems": 1,
                "description": "What to search: memory, observation (default: both).",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    read_only=True,
)

GET_OBSERVATIONS = ToolSpec(
    name="get_observations",
    title="Get observations by id",
    description=(
        f"Full details of 1 to {MAX_IDS} items by id, as search returns them: memories (integer "
        "ids; title and content) and observations (string ids; content, severity, status, "
        "evidence, source). `journal` names the session journal an item came from, for `read`. "
        "Unknown ids are listed under `missing`; items of other projects under `other_projects` "
        "unless all_projects is true."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "ids": {
                "type": "array",
                "items": {
                    "type": ["integer", "string"],
                    "minLength": 1,
                    "minimum": 1,
                    "maximum": MAX_INTEGER,
                },
                "minItems": 1,
                "maxItems": MAX_IDS,
                "description": f"Ids from search (1 to {MAX_IDS}).",
            },
            "all_projects": {
                "type": "boolean",
                "default": False,
                "description": "Also give items of other projects than the current one.",
            },
        },
        "required": ["ids"],
        "additionalProperties": False,
    },
    read_only=True,
)

READ = ToolSpec(
    name="read",
    title="Read a session transcript",
    description=(
        "Read lines of a recorded session as markdown: a Claude Code transcript (under "
        "~/.claude/projects or $CLAUDE_CONFIG_DIR/projects) or an onlooker journal (under the "
        "data home's journals folder). Paths anywhere else are refused. Lines are numbered from "
        f"1; at most {MAX_READ_LINES} lines per call (default {DEFAULT_READ_LINES}); the answer "
        "gives next_start_line when there is more. Secrets are redacted."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "The transcript: absolute, or relative to a transcript folder "
                "(e.g. journals/<project>/<session>.jsonl).",
            },
            "startLine": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_INTEGER,
                "default": 1,
                "description": "First line to read (1-based).",
            },
            "endLine": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_INTEGER,
                "description": f"Last line to read, inclusive (default startLine + "
                f"{DEFAULT_READ_LINES - 1}).",
            },
            "format": {
                "type": "string",
                "enum": ["markdown", "raw"],
                "default": "markdown",
                "description": "markdown: one readable entry per line; raw: the JSON lines.",
            },
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    read_only=True,
)

_OPERATIONS = list(REQUEST_FIELDS)
OBSERVATIONS = ToolSpec(
    name="observations",
    title="Manage observations",
    description=(
        "The observations store of this project: record findings (create_batch), list them with "
        "filters, get some by id, acknowledge one you are acting on, resolve one you fixed (with "
        "a note), clear resolved ones. Request and answer are the store's observations tool: "
        "fields other than `operation` depend on it."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": _OPERATIONS},
            "observations": {
                "type": "array",
                "description": "create_batch: items with observer and content (required), "
                f"severity ({', '.join(SEVERITIES)}), source_type "
                f"({', '.join(SOURCE_TYPES)}), source_ref, category, evidence, metadata.",
                "items": {"type": "object"},
            },
            "filters": {
                "type": "object",
                "description": f"list: status ({', '.join(STATUSES)}), severity, observer "
                "(each a string or a list), session_id.",
            },
            "sort_by": {"type": "string", "enum": list(ORDER), "description": "list order."},
            "limit": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_LIST_LIMIT,
                "description": "list: most items.",
            },
            "ids": {**_STRINGS, "description": "get: observation ids."},
            "observation_id": {
                "type": "string",
                "description": "get, acknowledge, resolve: one id (or a unique prefix of 4+).",
            },
            "resolution_note": {"type": "string", "description": "resolve: what was done."},
        },
        "required": ["operation"],
        "additionalProperties": False,
    },
    read_only=False,
)

TOOLS: tuple[ToolSpec, ...] = (SEARCH, GET_OBSERVATIONS, READ, OBSERVATIONS, *OBSERVER_TOOLS)
