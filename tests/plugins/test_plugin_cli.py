"""Plugins on the command line: a command a plugin adds, `onlooker plugins`, and failures named by
`onlooker doctor` and `onlooker config validate`, all as real processes."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from hook_runner import ONLOOKER

from onlooker import plugins


def onlooker(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ONLOOKER, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_a_plugins_command_runs_and_is_listed_apart(tmp_path: Path) -> None:
    done = onlooker("example-hello", "reader")
    assert done.returncode == 0 and done.stdout == "hello, reader, from onlooker-example-plugin\n"
    listed = onlooker("--help").stdout
    built_in, _, added = listed.partition("Commands from plugins:")
    assert "  plugins " in built_in and "example-hello" not in built_in
    assert "example-hello  Say hello from the example plugin." in added
    assert onlooker("no-such-command").returncode == 2


def test_plugins_lists_what_each_plugin_adds(tmp_path: Path) -> None:
    done = onlooker("plugins")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "onlooker-example-plugin 0.1.0  observers: secret-files or secrets, tool-tally",
        "onlooker-example-plugin 0.1.0  jobs: example.note",
        "onlooker-example-plugin 0.1.0  commands: example-hello",
    ]
    data = json.loads(onlooker("plugins", "--json").stdout)
    assert {(p["group"], p["entry_point"], p["value"]) for p in data} == {
        ("onlooker.observers", "example", "onlooker_example_plugin:register_observers"),
        ("onlooker.jobs", "example", "onlooker_example_plugin:register_jobs"),
        ("onlooker.commands", "example", "onlooker_example_plugin:register_commands"),
    }
    assert all(p["error"] is None for p in data)


SHADOWS = """\
import click


def register(cli):
    @cli.command(name="status")
    def status():
        click.echo("not onlooker's status")
"""


def test_failures_are_named_by_plugins_doctor_and_config_validate(
    tmp_path: Path, write_package: Callable[..., Path]
) -> None:
    write_package("pkg-shadow", SHADOWS, {plugins.COMMANDS: "register"})
    write_package("pkg-missing", "", {plugins.OBSERVERS: "register"})
    done = onlooker("plugins")
    assert done.returncode == 1
    assert "pkg-shadow 1.0  commands: FAILED to load: PluginError: command 'status' is taken" in (
        done.stdout
    )
    assert (
        "pkg-missing 1.0  observers: FAILED to load: AttributeError: module 'pkg_missing' has no "
        "attribute 'register'" in done.stdout
    )
    assert "not onlooker's status" not in onlooker("status", cwd=tmp_path).stdout
    doctor = onlooker("doctor", "--project", tmp_path)
    assert doctor.returncode == 1 and "onlooker doctor: needs attention" in doctor.stdout
    assert "  plugins        3 installed, 2 FAILED to load" in doctor.stdout
    (tmp_path / "onlooker.yaml").write_text("trajectory:\n  observers:\n    secrets: true\n")
    validate = onlooker("config", "validate", cwd=tmp_path)
    assert validate.returncode == 0 and "plugin observers: Secret Files" in validate.stdout
    assert validate.stderr == (
        "plugin failed to load, its observers cannot be named: pkg-missing 1.0 (pkg-missing = "
        "pkg_missing:register): AttributeError: module 'pkg_missing' has no attribute 'register'\n"
    )
    data = json.loads(onlooker("config", "validate", "--json", cwd=tmp_path).stdout)
    assert data["valid"] is True and len(data["plugin_failures"]) == 1


def test_doctor_is_healthy_with_the_example_plugin(tmp_path: Path) -> None:
    done = onlooker("doctor", "--json", "--project", tmp_path)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["healthy"] is True
    assert {p["package"] for p in report["plugins"]} == {"onlooker-example-plugin 0.1.0"}
