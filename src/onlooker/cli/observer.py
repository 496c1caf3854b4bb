"""`onlooker observer`: session scores and the improvements they lead to (specs/scoring.md).

Every subcommand prints text, or with `--json` the same facts as JSON.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from ..errors import ConfigError, OnlookerError
from .store_options import current_project, fail, open_store, print_json

if TYPE_CHECKING:
    from ..core.events import Event
    from ..scoring import Answer, ObserverCommands

json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
project_option = click.option(
    "--project", default=None, metavar="NAME",
    help="Project to use; default: the project of the current directory.",
)  # fmt: skip


@click.group(name="observer")
def command() -> None:
    """Session scores and instruction improvements.

    A judge model scores each session (instruction following, completeness, proactiveness, code
    quality, communication) in the background worker once a turn or session ends. A weakness that
    keeps coming back becomes a pending improvement to AGENTS.md (or an agent's prompt), applied
    with your approval, backed up and reversible. Turn scoring on with `scoring: {model: …}` in
    .onlooker/config.yaml.
    """


def _run(project: str | None, as_json: bool, act: Callable[[ObserverCommands], Answer]) -> None:
    _show(_answer(project, act), as_json)


def _answer(project: str | None, act: Callable[[ObserverCommands], Answer]) -> Answer:
    from ..config import load_project
    from ..scoring import ObserverCommands

    key = current_project(project)
    try:
        config = load_project(".")
    except ConfigError as exc:
        fail(str(exc))
    with open_store() as store:
        commands = ObserverCommands(
            store, key, config.root, config.scoring,
            model_for=_model, events_for=transcript_events,
        )  # fmt: skip
        try:
            return act(commands)
        except OnlookerError as exc:
            fail(str(exc))


def _show(answer: Answer, as_json: bool) -> None:
    if as_json:
        print_json(answer.data)
    else:
        click.echo(answer.text)


def _model(spec: str) -> Any:
    from ..llm import model_from_string

    return model_from_string(spec)


def transcript_events(session_id: str) -> Sequence[Event] | None:
    """A past session's events from its Claude Code transcript, when one has that id."""
    from ..hosts.claude_code.paths import claude_projects_dir
    from ..hosts.recorded.transcripts import read_transcript

    folder = claude_projects_dir()
    found = sorted(folder.glob(f"*/{session_id}.jsonl")) if folder.is_dir() else []
    if not found or os.sep in session_id or "/" in session_id:
        return None
    return read_transcript(found[0]).events


def _simple(name: str, help_text: str, call: Callable[[ObserverCommands, str], Answer]) -> None:
    @command.command(name=name, help=help_text)
    @click.argument("agent", required=False, default="")
    @project_option
    @json_option
    def run(agent: str, project: str | None, as_json: bool) -> None:
        _run(project, as_json, lambda c: call(c, agent))


_simple("status", "Aggregate stats, top weaknesses, recent sessions, trend and deltas "
        "(of AGENT when given).", lambda c, a: c.status(a))  # fmt: skip
_simple("score", "Score a session now: SESSION (an id from the journals or a Claude Code "
        "transcript), or with none the newest session of the current project. Given an AGENT "
        "name, show that agent's latest score instead.", lambda c, a: c.score(a))  # fmt: skip
_simple("suggest", "List pending improvements (rejected patterns left out).",
        lambda c, a: c.suggest(a))  # fmt: skip
_simple("history", "Every score with its breakdown, and each improvement's delta.",
        lambda c, a: c.history(a))  # fmt: skip


@command.command(name="rollback")
@click.argument("agent", required=False, default="")
@click.option(
    "--suggest-again",
    is_flag=True,
    help="Let the weakness be suggested again (by default a rollback rejects it).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Put the kept version back even over a hand edit the rollback cannot keep.",
)
@project_option
@json_option
def rollback_(
    agent: str, suggest_again: bool, force: bool, project: str | None, as_json: bool
) -> None:  # fmt: skip
    """Restore the previous AGENTS.md, or AGENT's previous prompt. The change's weakness is
    rejected (not suggested again) unless --suggest-again; a hand edit made since is kept."""
    _run(project, as_json, lambda c: c.rollback(agent, suggest_again=suggest_again, force=force))


yes_option = click.option(
    "--yes", "-y", is_flag=True, help="Apply without asking (scripts; the slash commands)."
)
dry_run_option = click.option(
    "--dry-run", is_flag=True, help="Show what would change; change nothing."
)


@command.command(name="apply")
@yes_option
@dry_run_option
@project_option
@json_option
def apply_(yes: bool, dry_run: bool, project: str | None, as_json: bool) -> None:
    """Show what the next pending improvement would change, then apply it once confirmed
    (--yes: without asking). Backed up first; `rollback` undoes it."""
    confirm_and_apply(project, 1, yes=yes, dry_run=dry_run, as_json=as_json)


@command.command(name="accept")
@click.argument("number", type=click.IntRange(min=1))
@yes_option
@dry_run_option
@project_option
@json_option
def accept(number: int, yes: bool, dry_run: bool, project: str | None, as_json: bool) -> None:
    """Show what pending improvement NUMBER (as `suggest` numbers them) would change, then
    apply it once confirmed (--yes: without asking)."""
    confirm_and_apply(project, number, yes=yes, dry_run=dry_run, as_json=as_json)


def confirm_and_apply(
    project: str | None, number: int, *, yes: bool, dry_run: bool, as_json: bool
) -> None:
    """Apply only what was shown and confirmed (specs/scoring.md): on a terminal ask (default
    no); `--yes` applies without asking; anything else shows the change and stops, changing
    nothing. A line the file already holds is "already present": nothing to ask."""
    shown = _answer(project, lambda c: c.preview(number))
    planned = shown.data["preview"]
    if not planned["changed"] and not dry_run:
        _run(project, as_json, lambda c: c.accept(number, planned["improvement"]["id"]))
        return
    if not yes or dry_run:
        _show(shown, as_json)
    if dry_run or not planned["changed"]:
        return
    if not yes:
        if as_json or not sys.stdin.isatty():
            click.echo("onlooker: nothing changed; run again with --yes to apply it", err=True)
            raise SystemExit(1)
        if not click.confirm("Apply this change?", default=False):
            click.echo("Nothing changed.")
            raise SystemExit(1)
    _run(project, as_json, lambda c: c.accept(number, planned["improvement"]["id"]))


@command.command(name="config")
@project_option
@json_option
def config_(project: str | None, as_json: bool) -> None:
    """The scoring settings, the auto-update toggles and the guidance."""
    _run(project, as_json, lambda c: c.config())


@command.command(name="auto")
@click.argument("words", nargs=-1, required=True)
@project_option
@json_option
def auto(words: tuple[str, ...], project: str | None, as_json: bool) -> None:
    """`auto on|off` for AGENTS.md, `auto prompts on|off` for agent prompts."""
    prompts = bool(words) and words[0] == "prompts"
    value = words[1 if prompts else 0] if len(words) > (1 if prompts else 0) else ""
    _run(project, as_json, lambda c: c.auto(value, prompts=prompts))


@command.command(name="steer")
@click.argument("words", nargs=-1)
@project_option
@json_option
def steer(words: tuple[str, ...], project: str | None, as_json: bool) -> None:
    """Set the judge's guidance (TEXT), show it (nothing), or clear it (`reset`)."""
    _run(project, as_json, lambda c: c.steer(" ".join(words)))


@command.command(name="reject")
@click.argument("words", nargs=-1, required=True)
@project_option
@json_option
def reject(words: tuple[str, ...], project: str | None, as_json: bool) -> None:
    """Reject pending improvement N, or a weakness PATTERN: it is never suggested again."""
    _run(project, as_json, lambda c: c.reject(" ".join(words)))


@command.command(name="rejections")
@project_option
@json_option
def rejections(project: str | None, as_json: bool) -> None:
    """List the rejected weakness patterns."""
    _run(project, as_json, lambda c: c.rejections())


@command.command(name="unreject")
@click.argument("words", nargs=-1, required=True)
@project_option
@json_option
def unreject(words: tuple[str, ...], project: str | None, as_json: bool) -> None:
    """Take back the rejection of PATTERN (matched by similarity)."""
    _run(project, as_json, lambda c: c.unreject(" ".join(words)))


@command.command(name="help")
@json_option
def help_(as_json: bool) -> None:
    """Every observer command, the scored dimensions and the score key."""
    from ..scoring import HELP

    if as_json:
        print_json({"help": HELP})
    else:
        click.echo(HELP)
