"""`onlooker memory`: search, show and forget the memories extracted from past sessions."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import cast

import click

from ..errors import SearchError
from ..memory import MODES, Memory, get_memories, search
from ..memory._memories import Memories
from ..memory.search import Mode
from ..store.identity import display_name
from .store_options import current_project, fail, open_store, print_json

json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
ids_argument = click.argument("ids", nargs=-1, required=True, type=click.IntRange(min=1))
DATE = click.DateTime(("%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"))


@click.group(name="memory")
def command() -> None:
    """Search, show and forget memories: what onlooker extracted from past sessions' tool events
    and adds, most recent first, at the start of the next session.

    Memory is on by default; a project turns it off with `memory.enabled: false` in its config or
    a `.onlooker/no-memory` file at its root.
    """


@command.command(name="search")
@click.argument("query")
@click.option("--mode", type=click.Choice(MODES), default="both", show_default=True,
              help="text: full-text; vector: by meaning (needs onlooker[embeddings]); both: "
              "the two fused (text only when embeddings are missing).")  # fmt: skip
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--after", type=DATE, help="Only memories from this time on (UTC), e.g. 2026-05-01.")
@click.option("--before", type=DATE, help="Only memories before this time (UTC).")
@click.option("--project", "projects", multiple=True, metavar="NAME",
              help="Repeatable; default: the project of the current directory.")  # fmt: skip
@click.option("--all-projects", is_flag=True, help="Search every project's memories.")
@click.option("--file", "files", multiple=True, metavar="PATH",
              help="Only memories naming this file (a path, or its end). Repeatable.")  # fmt: skip
@json_option
def search_(
    query: str,
    mode: str,
    limit: int,
    after: datetime | None,
    before: datetime | None,
    projects: Sequence[str],
    all_projects: bool,
    files: Sequence[str],
    as_json: bool,
) -> None:
    """Find memories matching QUERY, best first (compact: id, title, project, timestamp)."""
    chosen = (
        None
        if all_projects
        else ([current_project(p, known=True) for p in projects] or [current_project(None)])
    )
    with open_store() as store:
        try:
            found = search(
                store,
                query,
                cast(Mode, mode),
                limit,
                _utc(after),
                _utc(before),
                chosen,
                list(files),
            )
        except SearchError as exc:
            fail(str(exc))
    if as_json:
        print_json({"memories": [m.compact() for m in found]})
        return
    if not found:
        click.echo("No memories match.")
    for memory in found:
        click.echo(_line(memory))


@command.command(name="show")
@ids_argument
@json_option
def show(ids: Sequence[int], as_json: bool) -> None:
    """Show memories in full (title, content, files, session) by id."""
    with open_store() as store:
        found = get_memories(store, ids)
    missing = sorted(set(ids) - {m.id for m in found})
    if as_json:
        print_json({"memories": [m.to_dict() for m in found], "missing": missing})
    else:
        for memory in found:
            click.echo(_line(memory))
            click.echo(f"  {memory.content}")
            if memory.files:
                click.echo(f"  files: {', '.join(memory.files)}")
            click.echo(f"  session: {memory.session_id or '-'}")
    if missing:
        fail(f"no memory with id {', '.join(map(str, missing))}")


@command.command(name="forget")
@ids_argument
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@json_option
def forget(ids: Sequence[int], yes: bool, as_json: bool) -> None:
    """Forget memories: removed from search and injection, with a tombstone in the journal, so
    `onlooker reindex` does not bring them back."""
    with open_store() as store:
        memories = Memories(store)
        found = memories.get(ids)
        missing = sorted(set(ids) - {m.id for m in found})
        if missing:
            fail(f"no memory with id {', '.join(map(str, missing))}; nothing was forgotten")
        if not yes:
            for memory in found:
                click.echo(_line(memory), err=as_json)
            click.confirm(f"Forget {len(found)} memor{'y' if len(found) == 1 else 'ies'}?",
                          abort=True, err=as_json)  # fmt: skip
        gone = memories.forget([m.id for m in found])  # their vectors go with them
    if as_json:
        print_json({"forgotten": [m.id for m in gone]})
    else:
        click.echo(f"Forgot {len(gone)} memor{'y' if len(gone) == 1 else 'ies'}.")


def _line(memory: Memory) -> str:
    when = memory.timestamp.strftime("%Y-%m-%d %H:%M")
    return f"#{memory.id}  {when}  [{display_name(memory.project)}]  {memory.title}"


def _utc(when: datetime | None) -> datetime | None:
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when
