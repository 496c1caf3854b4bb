"""What `onlooker install` says about the project's config: its problems, FILE:LINE: KEY and what
is allowed, and which sections a session will run with their defaults (specs/config.md, "Fail
safe"); also when PyYAML, which reads config files, is not installed."""

from __future__ import annotations

from pathlib import Path

import click

from ..config import find_config, project_root
from ..config.hook_path import moved_to_background
from ..config.tolerant import PYYAML, load_tolerant


def config_warnings(project: Path) -> list[str]:
    """The warnings for the project `project` is in ([] when its config is fine)."""
    root = project_root(project)
    path = find_config(root)
    if path is None:
        try:
            import yaml  # noqa: F401
        except ImportError:
            return [f"{PYYAML}; without it a config file you add will not be read"]
        return []
    found = load_tolerant(path, root)
    notes = moved_to_background(found.config)
    if not found.problems:
        return notes
    warnings = [*found.problems, *notes]
    if found.defaulted == ("*",):
        warnings.append("until it is fixed, sessions run with onlooker's defaults")
    elif found.defaulted:
        sections = ", ".join(found.defaulted)
        warnings.append(f"until it is fixed, these sections use their defaults: {sections}")
    else:
        warnings.append("until it is fixed, those keys are left out; the rest runs as written")
    return warnings


def warn_about_config(project: Path) -> None:
    """Print the project's config warnings on stderr (the answer on stdout stays as it is)."""
    for warning in config_warnings(project):
        click.echo(f"warning: {warning}", err=True)
