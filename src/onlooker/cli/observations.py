"""`onlooker observations`: the observations tool (specs/store.md) on the command line.

`call '<request JSON>'` speaks the tool's own requests and responses; list, show, add, ack,
resolve, clear-resolved and search are the same operations with friendlier arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from ..core.assessment import SEVERITIES
from ..store import STATUSES, Created, FindingQuery, Observation, ObservationsTool, Store
from ..store.identity import display_name
from .store_options import (
    current_project,
    fail,
    open_store,
    print_json,
    project_display,
    project_options,
    read_request,
)

json_option = click.option("--json", "as_json", is_flag=True, help="Print the response as JSON.")


@click.group(name="observations")
def command() -> None:
    """List, add, acknowledge and resolve observations (findings) of a project.

    The same operations as the `observations` tool agents call: create_batch, list, get,
    acknowledge, resolve, clear_resolved. IDs may be shortened to a unique prefix (4+ chars).
    """


@command.command(name="call")
@click.argument("request")
@project_options
def call(request: str, project: str | None, session_id: str) -> None:
    """Send REQUEST to the observations tool and print its JSON response.

    REQUEST is JSON text, '-' to read it from stdin, or @FILE. Example:

      onlooker observations call '{"operation": "list", "filters": {"status": "open"}}'

    Exits 2 when the request is wrong (the response's "field" names the part).
    """
    data = read_request(request)
    with open_store() as store:
        response = _tool(store, project, session_id)(data)
    print_json(response)
    if response.get("status") == "error":
        raise SystemExit(2 if "field" in response else 1)


@command.command(name="list")
@click.option(
    "--status", "statuses", multiple=True, type=click.Choice(STATUSES), help="Repeatable."
)
@click.option(
    "--severity", "severities", multiple=True, type=click.Choice(SEVERITIES), help="Repeatable."
)
@click.option("--observer", "observers", multiple=True, metavar="NAME", help="Repeatable.")
@click.option(
    "--sort", "sort_by", type=click.Choice(("severity", "created_at")), default="severity"
)
@click.option("--limit", type=click.IntRange(min=0), default=50, show_default=True)
@json_option
@project_options
def list_(
    statuses: Sequence[str],
    severities: Sequence[str],
    observers: Sequence[str],
    sort_by: str,
    limit: int,
    as_json: bool,
    project: str | None,
    session_id: str,
) -> None:
    """List observations, most severe first (or newest first with --sort created_at)."""
    filters: dict[str, Any] = {}
    for key, values in (("status", statuses), ("severity", severities), ("observer", observers)):
        if values:
            filters[key] = list(values)
    request = {"operation": "list", "filters": filters, "sort_by": sort_by, "limit": limit}
    with open_store() as store:
        response = _checked(_tool(store, project, session_id)(request))
        if as_json:
            print_json(response)
            return
        from ..display.observations import render

        name = current_project(project)
        page = store.query(FindingQuery(project=name, limit=0))
        rows = store.get([o["id"] for o in response["observations"]], name)
        console = _console()
        console.print(render("table", display_name(name), page, rows, expand=console.is_terminal))


@command.command(name="show")
@click.argument("ids", nargs=-1, required=True, metavar="ID...")
@json_option
@project_options
def show(ids: Sequence[str], as_json: bool, project: str | None, session_id: str) -> None:
    """Show observations in full."""
    with open_store() as store:
        response = _checked(
            _tool(store, project, session_id)({"operation": "get", "ids": list(ids)})
        )
    if as_json:
        print_json(response)
        return
    console = _console()
    for i, item in enumerate(response["observations"]):
        if i:
            console.print()
        for key, value in item.items():
            if value not in (None, "", {}):
                console.print(f"[bold]{key}[/]: {value}", highlight=False, markup=True)


@command.command(name="add")
@click.argument("content")
@click.option("--observer", required=True, metavar="NAME", help="Who noticed it.")
@click.option("--severity", type=click.Choice(SEVERITIES), default="medium", show_default=True)
@click.option("--source-type", type=click.Choice(("file", "conversation", "mixed")), default="file")
@click.option("--source-ref", metavar="REF", help="A file path with :line, or a message id.")
@click.option("--category", default=None, metavar="NAME", help="security, quality, logic ...")
@json_option
@project_options
def add(
    content: str,
    observer: str,
    severity: str,
    source_type: str,
    source_ref: str | None,
    category: str | None,
    as_json: bool,
    project: str | None,
    session_id: str,
) -> None:
    """Add one observation (an equal unresolved one counts one more occurrence instead)."""
    item: dict[str, Any] = {
        "observer": observer,
        "content": content,
        "severity": severity,
        "source_type": source_type,
        "source_ref": source_ref,
        "category": category,
    }
    request = {"operation": "create_batch", "observations": [item]}
    with open_store() as store:
        response = _checked(_tool(store, project, session_id)(request))
        if as_json:
            print_json(response)
            return
        from ..display.observations import ObservationsDisplay

        stored = store.get([response["observations"][0]["id"]])
        created = [Created(stored[0], bool(response["new"]))]
    ObservationsDisplay(project_display(), _console()).created(created)


@command.command(name="ack")
@click.argument("ids", nargs=-1, required=True, metavar="ID...")
@json_option
@project_options
def ack(ids: Sequence[str], as_json: bool, project: str | None, session_id: str) -> None:
    """Acknowledge observations: seen, being worked on."""
    responses = []
    with open_store() as store:
        tool = _tool(store, project, session_id)
        for finding_id in ids:
            request = {"operation": "acknowledge", "observation_id": finding_id}
            responses.append(_checked(tool(request)))
    if as_json:
        print_json(responses[0] if len(responses) == 1 else responses)
        return
    for response in responses:
        item = response["observations"][0]
        click.echo(f"acknowledged {item['id'][:8]} [{item['severity']}] {item['content']}")


@command.command(name="resolve")
@click.argument("finding_id", metavar="ID")
@click.option("--note", default=None, help="How it was resolved (the resolution_note).")
@json_option
@project_options
def resolve(
    finding_id: str, note: str | None, as_json: bool, project: str | None, session_id: str
) -> None:
    """Resolve an observation, with an optional note."""
    request = {"operation": "resolve", "observation_id": finding_id, "resolution_note": note}
    with open_store() as store:
        response = _checked(_tool(store, project, session_id)(request))
        stored = store.get([response["observations"][0]["id"]])
    if as_json:
        print_json(response)
        return
    from ..display.observations import ObservationsDisplay

    ObservationsDisplay(project_display(), _console()).resolved(stored[0])


@command.command(name="clear-resolved")
@json_option
@project_options
def clear_resolved(as_json: bool, project: str | None, session_id: str) -> None:
    """Remove the project's resolved observations (their history stays in the journals)."""
    with open_store() as store:
        response = _checked(_tool(store, project, session_id)({"operation": "clear_resolved"}))
    if as_json:
        print_json(response)
    else:
        click.echo(f"cleared {response['count']} resolved observation(s)")


@command.command(name="search")
@click.argument("text")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@json_option
@project_options
def search(text: str, limit: int, as_json: bool, project: str | None, session_id: str) -> None:
    """Full-text search over observations (every word must appear), newest first."""
    name = current_project(project)
    with open_store() as store:
        found = store.search(text, name, limit)
        if as_json:
            print_json({"status": "ok", "count": len(found), "observations": _dicts(found)})
            return
        from ..display.observations import render

        page = store.query(FindingQuery(project=name, limit=0))
    console = _console()
    console.print(render("table", display_name(name), page, found, expand=console.is_terminal))


def _tool(store: Store, project: str | None, session_id: str) -> ObservationsTool:
    return ObservationsTool(store, project=current_project(project), session_id=session_id)


def _checked(response: dict[str, Any]) -> dict[str, Any]:
    if response.get("status") == "error":
        fail(str(response["error"]))
    return response


def _dicts(observations: Sequence[Observation]) -> list[dict[str, Any]]:
    return [o.to_dict() for o in observations]


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False)
