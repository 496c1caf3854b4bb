"""`onlooker hook`: read a Claude Code hook's JSON on stdin, print what to deliver, exit 0.

`onlooker hook` with no options skips click altogether (see cli.main); this module serves --help.
"""

from __future__ import annotations

import click


@click.command(name="hook")
def command() -> None:
    """Answer one Claude Code hook.

    Reads the hook input (JSON) on stdin, hands it to the onlooker hook service (started on
    demand, one per data home) and prints the answer in Claude Code's format. It always exits 0:
    when something goes wrong the input is kept in the spool and `onlooker doctor` reports it.
    """
    from ..daemon.client import main

    raise SystemExit(main())
