"""The memory model chosen at install (`--memory-model`, or the question an interactive install
asks): kept in the data home for every project (memory.settings.choose_model). Nothing goes to a
model unless it is chosen here, in a project's `memory.model` or in `$ONLOOKER_MEMORY_MODEL`."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from ..errors import ProviderSetupError
from ..llm.opencode import check_model
from ..llm.providers import PROVIDERS
from ..memory.settings import choose_model, model_chosen

OFFERED = "claude-code:haiku"
"""What an interactive install offers: the user's own Claude Code, its cheapest model."""
OFFERED_OPENCODE = "opencode:default"
"""What an interactive opencode install offers: the user's own opencode, its configured model."""


@dataclass(frozen=True, slots=True)
class Offer:
    """The model an interactive install of a host offers, and the CLI it needs on PATH."""

    spec: str
    cli: str
    said: str


OFFERS = {
    "claude-code": Offer(OFFERED, "claude", f"through your own Claude Code ({OFFERED})? It runs "
                         "with your Claude Code login, uses its tokens"),
    "opencode": Offer(OFFERED_OPENCODE, "opencode", f"through your own opencode "
                      f"({OFFERED_OPENCODE}, the model its config names)? It runs with the "
                      "provider opencode is configured with, uses its tokens"),
}  # fmt: skip


def memory_choice(
    home: Path, spec: str | None, *, dry_run: bool, ask: bool, host: str = "claude-code"
) -> str:
    """Keep the chosen model (or ask, in a terminal, when none is chosen yet); the note to show
    ('' when nothing changed)."""
    if spec is None:
        spec = _asked(home, OFFERS[host]) if ask else None
        if spec is None:
            return ""
    spec = spec.strip()
    if spec not in ("", "none"):
        provider, colon, name = spec.partition(":")
        if not colon or provider not in PROVIDERS or not name:
            raise click.BadParameter(
                f"{spec!r} is not a model string: write provider:model with a provider of "
                f"{', '.join(PROVIDERS)} (e.g. {OFFERS[host].spec}), or none",
                param_hint="--memory-model",
            )
        if provider == "opencode":
            try:
                check_model(spec, name)
            except ProviderSetupError as exc:
                raise click.BadParameter(str(exc), param_hint="--memory-model") from None
    if dry_run:
        return f"would keep memory model {spec or 'none'} for every project"
    path = choose_model(home, spec)
    if spec in ("", "none"):
        return f"memories are made by rule, with no model (kept in {path})"
    return f"memory model {spec} for every project (kept in {path}; a project's memory.model wins)"


def _asked(home: Path, offer: Offer) -> str | None:
    """In a terminal, with the host's CLI on PATH and no choice made yet: ask once."""
    if model_chosen(home) or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    if shutil.which(offer.cli) is None:
        return None
    yes = click.confirm(
        f"Turn sessions into memories {offer.said} (capped per session and per day), and "
        "sends only one-line summaries of tool calls",
        default=False,
    )
    return offer.spec if yes else "none"
