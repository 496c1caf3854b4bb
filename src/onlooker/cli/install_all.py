"""`onlooker install` with no host: find Claude Code, opencode and Amplifier on this machine, say
what will change in each (the dry run of each host's install), ask once (`--yes` for scripts),
then install into each (specs/install.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..hosts.detect import Detected, detect_hosts

AMPLIFIER_NOTE = (
    "Amplifier loads onlooker as a module, nothing to write: add `hooks-onlooker` (and "
    "`tool-onlooker-observations`) to your bundle's modules; it needs `pip install "
    "'onlooker[amplifier]'` in Amplifier's environment (specs/hosts.md)"
)


def install_everywhere(
    ctx: click.Context,
    scope: str,
    yes: bool,
    dry_run: bool,
    *,
    install_claude_code: click.Command,
    install_opencode: click.Command,
) -> None:
    """Install into every host found, with the hosts' own install commands; nothing found is an
    error that says how to name one."""
    found = detect_hosts()
    if not found:
        click.echo(
            "onlooker: no agent host found (no claude or opencode on PATH, no ~/.claude, "
            "~/.config/opencode or Amplifier); name one: onlooker install claude-code",
            err=True,
        )
        raise SystemExit(1)
    _describe(found, scope)
    steps: list[tuple[str, Any, dict[str, Any]]] = []
    for detected in found:
        if detected.host == "claude-code":
            steps.append(("Claude Code", install_claude_code, _claude_options(scope)))
        elif detected.host == "opencode":
            steps.append(("opencode", install_opencode, _opencode_options(scope)))
    for name, step, options in steps:
        click.echo(f"\n{name}:")
        ctx.invoke(step, **options, dry_run=True)
    if any(d.host == "amplifier" for d in found):
        click.echo(f"\nAmplifier: {AMPLIFIER_NOTE}")
    if dry_run or not steps:
        return
    if not yes:
        if not sys.stdin.isatty():
            click.echo("\nonlooker: nothing written; run again with --yes to install", err=True)
            raise SystemExit(1)
        if not click.confirm("\nInstall onlooker as shown?", default=True):
            raise SystemExit(1)
    for name, step, options in steps:
        click.echo(f"\n{name}:")
        ctx.invoke(step, **options, dry_run=False)


def _describe(found: list[Detected], scope: str) -> None:
    where = "every project (user scope)" if scope == "user" else "this project"
    click.echo(f"onlooker found {len(found)} agent host(s); it installs into {where}:")
    for detected in found:
        click.echo(f"  {detected.host:<12} ({detected.evidence})")


def _claude_options(scope: str) -> dict[str, Any]:
    return {"scope": scope, "project": Path("."), "as_json": False, "mcp": True, "plugin": None}


def _opencode_options(scope: str) -> dict[str, Any]:
    return {"scope": scope, "project": Path("."), "as_json": False}
