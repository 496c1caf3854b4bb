"""`onlooker config validate [PATH]` and `onlooker config show`: check a project's config file,
and print the config in effect with every default filled in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from ..config import ConfigInvalid, ProjectConfig, find_config, load_config, load_project
from ..config import project_root as root_of
from ..config.hook_path import moved_to_background
from ..errors import ConfigError
from ..memory.settings import NO_MODEL, extraction_model, model_source
from ..observers import BUILTIN
from ..store.home import data_home


@click.group(name="config")
def command() -> None:
    """Check and show the project's config (.onlooker/config.yaml or onlooker.yaml)."""


@command.command(name="validate")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def validate(path: Path | None, as_json: bool) -> None:
    """Check a config file: PATH (a file, or a project folder), default the current project's.

    Prints every problem as FILE:LINE: KEY: MESSAGE and exits 1 when there is any.
    """
    file = _config_file(path)
    failed = _plugin_failures()
    if file is None:
        root = root_of(path or ".")
        _report(as_json, {"file": None, "valid": True, "problems": [], "root": str(root)},
                f"no config file in {root} (.onlooker/config.yaml or onlooker.yaml): "
                "the defaults apply", failed)  # fmt: skip
        return
    try:
        config = load_config(file)
    except ConfigInvalid as exc:
        problems = [p.to_dict() for p in exc.problems]
        data = {"file": str(file), "valid": False, "problems": problems}
        _report(as_json, data, str(exc), failed)
        raise SystemExit(1) from None
    except ConfigError as exc:
        problem = {"file": str(file), "line": 0, "key": "", "message": str(exc)}
        data = {"file": str(file), "valid": False, "problems": [problem]}
        _report(as_json, data, str(exc), failed)
        raise SystemExit(1) from None
    notes = moved_to_background(config)
    data = {"file": str(file), "valid": True, "problems": [], "notes": notes}
    text = "\n".join([f"{file}: ok ({_summary(config)})", *(f"note: {n}" for n in notes)])
    _report(as_json, data, text, failed)


@command.command(name="show")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the config as JSON.")
def show(path: Path | None, as_json: bool) -> None:
    """Print the config in effect (the project's file with every default filled in), with the
    memory extraction model actually used (`memory.modelInEffect`)."""
    file = _config_file(path)
    try:
        config = load_config(file) if file else load_project(path or ".")
    except ConfigError as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(1) from None
    data = config.to_dict()
    home = data_home()
    in_effect = extraction_model(config.memory.model, home)
    data["memory"] = {
        **data.get("memory", {}), "modelInEffect": in_effect or NO_MODEL,
        "modelSource": model_source(config.memory.model, home),
    }  # fmt: skip
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    import yaml

    source = f"# {config.path}" if config.path else f"# no config file in {config.root}: defaults"
    click.echo(source)
    click.echo(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), nl=False)


def _config_file(path: Path | None) -> Path | None:
    """PATH itself when it is a file; else the config of the project PATH (or .) is in."""
    if path is not None and not path.is_dir():
        if not path.exists():
            raise click.BadParameter(f"{path} does not exist", param_hint="PATH")
        return path
    return find_config(root_of(path or "."))


def _summary(config: ProjectConfig) -> str:
    reviewers = len(config.reviewers)
    observers = config.trajectory.observers
    built_in = ", ".join(o.name for o in observers if o.name in BUILTIN) or "none"
    added = ", ".join(o.name for o in observers if o.name not in BUILTIN)
    return (
        f"{reviewers} reviewer{'s' if reviewers != 1 else ''}, execution "
        f"{config.execution.mode}, built-in observers: {built_in}"
        + (f", plugin observers: {added}" if added else "")
    )


def _plugin_failures() -> list[str]:
    """Observer plugins that failed to load: a config cannot turn their observers on."""
    from ..observers import plugin_failures, plugin_observers

    plugin_observers()
    return [str(failure) for failure in plugin_failures()]


def _report(as_json: bool, data: dict[str, Any], text: str, failed: list[str]) -> None:
    """The result; observer plugins that failed to load are named after it (JSON:
    `plugin_failures`), whether the file is valid or not."""
    if as_json:
        click.echo(json.dumps({**data, "plugin_failures": failed}, indent=2))
        return
    click.echo(text)
    for failure in failed:
        click.echo(f"plugin failed to load, its observers cannot be named: {failure}", err=True)
