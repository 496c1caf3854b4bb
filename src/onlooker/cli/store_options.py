"""What the store commands share: --project and --session, opening the store, failing clearly.

Errors go to stderr with exit status 2 and name the field or the file at fault.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from ..store import Store, StoreError, data_home, project_for
from ..store.identity import display_name, matching_keys
from ..text.encodable import encodable

if TYPE_CHECKING:
    from ..display.observations import DisplayOptions

F = TypeVar("F", bound=Callable[..., Any])


def project_options(function: F) -> F:
    """Add --project (default: the project of the current directory) and --session."""
    function = click.option(
        "--session",
        "session_id",
        default="",
        metavar="ID",
        help="Act as this session (its journal records the change); default: none, so the "
        "change goes to the project's manual journal.",
    )(function)
    return click.option(
        "--project",
        default=None,
        metavar="NAME",
        help="Project whose observations to use: its folder name (when only one project has it) "
        "or its key (`onlooker status --json` shows it); default: the project of the current "
        "directory (the nearest folder with .git, .onlooker or onlooker.yaml).",
    )(function)


def current_project(project: str | None) -> str:
    """The store key of `--project`, else of the current directory's project.

    `--project` is a key, a folder name that designates one project, or a path to the project's
    folder (any value with a path separator, or starting with `.` or `~`). A name the store has
    nothing of fails, listing the projects it has; so does an ambiguous name, listing its keys,
    and a path that is not a folder. Every command that takes `--project` refuses a mistyped one
    the same way, so nothing is ever filed under a name that designates no project."""
    if not project:
        return project_for(os.getcwd())
    if os.sep in project or project.startswith((".", "~")):
        folder = Path(project).expanduser()
        if not folder.is_dir():
            fail(f"--project: {project}: the folder does not exist")
        return project_for(str(folder))
    with open_store() as store:
        every = store.project_keys()
        keys = matching_keys(every, project)
    if not keys:
        names = ", ".join(sorted({display_name(key) for key in every})) or "none yet"
        fail(
            f"--project: the store ({data_home()}) has nothing of a project {project!r}; "
            f"its projects: {names} (or pass the project's folder, e.g. --project ./{project})"
        )
    if len(keys) > 1:
        fail(
            f"--project: the name {project!r} is ambiguous, it names {len(keys)} projects "
            f"(folders of that name in different places): pass one of their keys: "
            f"{', '.join(keys)}"
        )
    return keys[0]


def open_store() -> Store:
    try:
        return Store()
    except StoreError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{data_home()}: cannot use the data home ({exc.strerror or exc})")


def fail(message: str) -> NoReturn:
    click.echo(f"onlooker: {message}", err=True)
    raise SystemExit(2)


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def read_request(source: str) -> Any:
    """A request given as JSON text, '-' for stdin, or @FILE."""
    where = "request"
    if source == "-":
        stream = getattr(sys.stdin, "buffer", None)  # bytes, to decode them leniently
        text = stream.read().decode("utf-8", "replace") if stream else sys.stdin.read()
        where = "request (stdin)"
    elif source.startswith("@"):
        path = Path(source[1:])
        where = f"request ({path})"
        try:
            text = path.read_bytes().decode("utf-8", "replace")
        except OSError as exc:
            fail(f"{path}: cannot read the request ({exc.strerror or exc})")
    else:
        text = source
    try:  # bytes that are not UTF-8 are U+FFFD, and so is a `\ud800` escape (text/encodable.py)
        return encodable(json.loads(text))
    except json.JSONDecodeError as exc:
        fail(f"{where}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")


def project_display() -> DisplayOptions:
    """The display options of the current directory's project config; the defaults when it sets
    none or does not validate (said on stderr)."""
    from ..config import load_project
    from ..display.observations import DisplayOptions
    from ..errors import ConfigError

    try:
        return load_project(".").display
    except ConfigError as exc:
        first = str(exc).splitlines()[-1].strip()
        click.echo(f"onlooker: config not valid, display defaults apply: {first}", err=True)
        return DisplayOptions()
