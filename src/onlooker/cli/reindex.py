"""`onlooker reindex`: rebuild the index (`onlooker.db`) from the journals, which hold the truth.

Every finding comes back with its status, notes, timestamps and occurrences; lines a killed
writer left torn are skipped and listed. Vectors are re-embedded where their text is new or changed.
"""

from __future__ import annotations

import click

from ..runtime import reindex, remove_index
from ..store import data_home
from ..store.home import store_url
from .store_options import fail, open_store, print_json


@click.command(name="reindex")
@click.option(
    "--fresh",
    is_flag=True,
    help="Delete onlooker.db (and its -wal/-shm files) first, e.g. when it is damaged. Stop "
    "running agents first: their writes in the meantime are caught up from the journals later.",
)
@click.option("--json", "as_json", is_flag=True, help="Print what was rebuilt as JSON.")
def command(fresh: bool, as_json: bool) -> None:
    """Rebuild the index from the journals in the data home ($ONLOOKER_HOME)."""
    if fresh and store_url(data_home()):
        fail(
            "--fresh deletes onlooker.db, but the index is a shared PostgreSQL store; without "
            "--fresh, reindex loads this machine's journals into it (safe to repeat)."
        )
    if fresh:
        remove_index(data_home())
    with open_store() as store:
        report = reindex(store)
    data = {
        "home": str(store.home),
        "journals": report.journals,
        "records": report.records,
        "changes": report.changes,
        "findings": report.findings,
        "sessions": report.sessions,
        "skipped": [str(line) for line in report.skipped],
        "vectors": {
            kind: {"embedded": v.embedded, "kept": v.kept, "removed": v.removed}
            for kind, v in report.vectors
        },
        "vectors_skipped": report.vectors_skipped,
    }
    if as_json:
        print_json(data)
        return
    for line in report.skipped:
        click.echo(f"warning: {line}", err=True)
    click.echo(
        f"reindexed {store.home}: {report.journals} journals, {report.records} records, "
        f"{report.findings} findings, {report.sessions} session snapshots rebuilt"
        + (f", {len(report.skipped)} damaged lines skipped" if report.skipped else "")
    )
    for kind, v in report.vectors:
        if v.embedded or v.kept or v.removed:
            click.echo(f"{kind} vectors: {v.embedded} embedded, {v.kept} kept, {v.removed} removed")
    if report.vectors_skipped:
        click.echo(f"vectors not rebuilt: {report.vectors_skipped}", err=True)
