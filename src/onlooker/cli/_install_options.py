"""What the install and uninstall commands of every host share: --dry-run, --json, and an
InstallError turned into a clear command-line error."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from ..errors import InstallError

T = TypeVar("T")

dry_run_option = click.option(
    "--dry-run", is_flag=True, help="Show what would change; write nothing."
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")


def run_install(action: Callable[[], T]) -> T:
    """The action's result; an InstallError becomes a click error with its message."""
    try:
        return action()
    except InstallError as exc:
        raise click.ClickException(str(exc)) from None
