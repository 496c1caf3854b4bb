"""`onlooker issues`: file the project's critical and high findings as issues, as the config's
`post_processing.create_issues_for` says (specs/config.md, pattern 5).
"""

from __future__ import annotations

import click

from ..config import load_project
from ..errors import ConfigError
from ..runtime.issues import file_project_issues
from .store_options import current_project, open_store, print_json


@click.command(name="issues")
@click.option("--project", default=None, metavar="NAME", help="Default: the current directory's.")
@click.option("--no-github", is_flag=True, help="Only the local issues file, even if GitHub is on.")
@click.option("--json", "as_json", is_flag=True, help="Print what was filed as JSON.")
def command(project: str | None, no_github: bool, as_json: bool) -> None:
    """Add an entry to the local issues file (default .onlooker/issues.md) for each unresolved
    finding of the configured severities that has none yet, and open it on GitHub with
    `gh issue create` when the config sets `github: true` and gh is installed.

    Needs `post_processing: create_issues_for:` in the hooks-observations module of the
    project's config. Entries are never duplicated.
    """
    key = current_project(project)  # a mistyped --project fails before anything else
    try:
        config = load_project(".")
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    if config.issues is None:
        raise click.ClickException(
            "the project config has no post_processing.create_issues_for "
            "(see examples/config/pattern5-issues.yaml)"
        )
    with open_store() as store:
        done = file_project_issues(store, config, key, github=not no_github)
    assert done is not None
    if as_json:
        print_json(
            {
                "file": str(done.path),
                "added": list(done.added),
                "opened": done.opened,
                "failed": done.failed,
                "gh_missing": done.gh_missing,
            }
        )
        return
    click.echo(
        f"{len(done.added)} new issue entr{'y' if len(done.added) == 1 else 'ies'} in {done.path}"
    )
    for finding_id, url in done.opened.items():
        click.echo(f"  opened {url} for {finding_id[:8]}")
    for finding_id, reason in done.failed.items():
        click.echo(f"  gh issue create failed for {finding_id[:8]}: {reason}", err=True)
    if done.gh_missing:
        click.echo("  github: true, but gh is not installed: entries stay pending", err=True)
