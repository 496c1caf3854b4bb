"""The `onlooker` command. Subcommands live in their own modules and load only when invoked.

To add one: write `cli/<name>.py` with a click command called `command`, and list it in
`cli/_commands.py`.
Installed plugins add theirs through `onlooker.commands` entry points, loaded only when asked for.
"""

from __future__ import annotations

import importlib
import sys

from ._commands import COMMANDS

TYPE_CHECKING = False  # `typing` is not imported: `onlooker mcp` starts without it
if TYPE_CHECKING:
    from typing import Any


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `onlooker` console script."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["hook"]:  # the hook path: no click, no rich, straight to the client
        from ..daemon.client import main as hook_main

        raise SystemExit(hook_main())
    if args[:1] == ["mcp"]:  # what Claude Code starts: the MCP server's front, no click
        from ._mcp_start import serve_fast

        if serve_fast(args[1:]):
            return
    args = [_encodable_argument(arg) for arg in args]
    from .terminal import prepare_output, run_quietly_on_closed_pipe

    prepare_output()
    try:
        group = build_group()
    except ImportError as exc:  # pragma: no cover - a damaged install
        sys.stderr.write(
            f"onlooker: the command line cannot start ({exc}); install onlooker again: "
            "pipx install --force onlooker (or pip install --force-reinstall onlooker)\n"
        )
        raise SystemExit(2) from None
    run_quietly_on_closed_pipe(lambda: group.main(args=args, prog_name="onlooker"))


def _encodable_argument(arg: str) -> str:
    """An argument holding bytes that are not UTF-8 (or a lone surrogate) with U+FFFD in their
    place, so no command stores text that cannot be encoded; one naming an existing file or
    folder (`@FILE` too) stays as it was: a path is kept byte for byte."""
    from ..text.encodable import encodable_text

    cleaned = encodable_text(arg)
    if cleaned is arg:
        return arg
    import os

    path = arg[1:] if arg.startswith("@") else arg
    return arg if path and os.path.lexists(path) else cleaned


def build_group() -> Any:
    """The click group with every subcommand (each imported when first used)."""
    import click

    from .. import __version__

    class LazyGroup(click.Group):
        def list_commands(self, ctx: Any) -> list[str]:
            return sorted({*COMMANDS, *_plugin_commands()})

        def get_command(self, ctx: Any, name: str) -> Any:
            if name not in COMMANDS:  # plugins load only for a name that is not built in
                found = _plugin_commands().get(name)
                return found[0] if found else None
            module = importlib.import_module(f"onlooker.cli.{COMMANDS[name][0]}")
            return module.command

        def format_commands(self, ctx: Any, formatter: Any) -> None:
            rows = [(name, COMMANDS[name][1]) for name in sorted(COMMANDS)]
            with formatter.section("Commands"):
                formatter.write_dl(rows)
            added = _plugin_commands()
            if added:
                with formatter.section("Commands from plugins"):
                    formatter.write_dl(
                        [
                            (name, cmd.get_short_help_str())
                            for name, (cmd, _) in sorted(added.items())
                        ]
                    )

    group = LazyGroup(
        name="onlooker",
        help=(
            "onlooker puts observers on AI agents: it notices loops, error cascades, drift and "
            "deadlines in what an agent does and feeds what it finds back into its context."
        ),
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    return click.version_option(__version__, prog_name="onlooker")(group)


def _plugin_commands() -> dict[str, Any]:
    from .plugins import plugin_commands

    return plugin_commands(set(COMMANDS))
