"""`onlooker memory`: search, show, forget, edit and pin the memories extracted from past
sessions."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import cast

import click

from ..errors import SearchError
from ..memory import MODES, Memory, MemoryFilter, get_memories, search
from ..memory._memories import Memories
from ..memory.search import Mode
from ..store.identity import display_name
from .store_options import current_project, fail, open_store, print_json

json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
ids_argument = click.argument("ids", nargs=-1, required=True, type=click.IntRange(min=1))
DATE = click.DateTime(("%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"))


@click.group(name="memory")
def command() -> None:
    """Search, show, edit, pin and forget memories: what onlooker extracted from past sessions'
    tool events and adds, pinned first then most recent, at the start of the next session.

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
        else ([current_project(p) for p in projects] or [current_project(None)])
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
@click.argument("ids", nargs=-1, type=click.IntRange(min=1))
@click.option("--session", "sessions", multiple=True, metavar="ID",
              help="Forget every memory this session left. Repeatable.")  # fmt: skip
@click.option("--query", metavar="TEXT",
              help="Forget the current project's memories matching TEXT (full-text; up to 100); "
              "they are listed and you are asked first.")  # fmt: skip
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@json_option
def forget(
    ids: Sequence[int], sessions: Sequence[str], query: str | None, yes: bool, as_json: bool
) -> None:
    """Forget memories by id, by session or by query: removed from search and injection, with a
    tombstone in the journal, so `onlooker reindex` does not bring them back."""
    if not (ids or sessions or query):
        fail("name what to forget: memory ids, --session ID or --query TEXT")
    with open_store() as store:
        memories = Memories(store)
        found = memories.get(ids)
        missing = sorted(set(ids) - {m.id for m in found})
        if missing:
            fail(f"no memory with id {', '.join(map(str, missing))}; nothing was forgotten")
        for session in sessions:
            found += memories.of_session(session)
        if query:
            where = MemoryFilter(projects=(current_project(None),))
            found += memories.get(memories.text_search(query, where, 100))
        found = list({m.id: m for m in found}.values())
        if not found:
            fail("no memory matches; nothing was forgotten")
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


@command.command(name="edit")
@click.argument("memory_id", type=click.IntRange(min=1))
@click.option("--title", help="The new title.")
@click.option("--content", help="The new content.")
@json_option
def edit(memory_id: int, title: str | None, content: str | None, as_json: bool) -> None:
    """Correct a memory's title or content (journaled; `onlooker reindex` keeps the correction).
    Without --title and --content, opens the memory in $EDITOR: title on the first line."""
    with open_store() as store:
        memories = Memories(store)
        memory = _one(memories, memory_id)
        if title is None and content is None:
            typed = click.edit(f"{memory.title}\n\n{memory.content}\n")
            if typed is None:
                fail("nothing was changed")
            head, _, body = typed.strip().partition("\n")
            title, content = head, body
        title, content = (title or memory.title).strip(), (content or memory.content).strip()
        if not title or not content:
            fail("a memory needs a title and a content")
        changed = memories.edit(memory, title=title, content=content)
    if as_json:
        print_json({"memory": changed.to_dict()})
    else:
        click.echo(_line(changed))
        click.echo(f"  {changed.content}")


@command.command(name="pin")
@click.argument("memory_id", type=click.IntRange(min=1))
@click.option("--unpin", is_flag=True, help="Unpin it instead.")
@json_option
def pin(memory_id: int, unpin: bool, as_json: bool) -> None:
    """Pin a memory: it comes first in every session-start digest of its project, whatever its
    age (within the digest's token budget)."""
    with open_store() as store:
        memories = Memories(store)
        memory = _one(memories, memory_id)
        memories.pin(memory, pinned=not unpin)
    if as_json:
        print_json({"memory": memory_id, "pinned": not unpin})
    else:
        click.echo(f"{'Unpinned' if unpin else 'Pinned'} {_line(memory)}")


def _one(memories: Memories, memory_id: int) -> Memory:
    found = memories.get([memory_id])
    if not found:
        fail(f"no memory with id {memory_id}")
    return found[0]


def _line(memory: Memory) -> str:
    when = memory.timestamp.strftime("%Y-%m-%d %H:%M")
    return f"#{memory.id}  {when}  [{display_name(memory.project)}]  {memory.title}"


def _utc(when: datetime | None) -> datetime | None:
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when
