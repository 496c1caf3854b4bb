"""The observer registry with real entry points: the installed example plugin, and packages that
fail to import, fail to build or take a name that is not theirs."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from onlooker import Engine, Session, ToolCall, plugins
from onlooker.config import ConfigInvalid, load_config
from onlooker.errors import ConfigError
from onlooker.observers import builtin_observers, find_observer, get_observer

WritePackage = Callable[..., Path]


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "onlooker.yaml"
    path.write_text(text)
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(ConfigInvalid) as caught:
        load_config(path)
    return [str(p) for p in caught.value.problems]


def test_a_config_of_built_ins_never_looks_for_plugins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_scan(group: str) -> list[object]:
        raise AssertionError(f"scanned {group}")

    monkeypatch.setattr(plugins, "_entry_points", no_scan)
    path = config(
        tmp_path, "trajectory:\n  observers:\n    stall: {repeat_warn: 3}\n    plan: false\n"
    )
    names = [o.name for o in load_config(path).trajectory.observers]
    assert names == ["Deadline", "Stall", "Error Cascade", "Drift"]
    assert get_observer("cascade").name == "Error Cascade"
    assert plugins.loaded(plugins.OBSERVERS) is None


def test_an_installed_plugins_observer_is_on_only_where_a_config_names_it(tmp_path: Path) -> None:
    plain = config(tmp_path, "trajectory:\n  observers:\n    drift: false\n")
    assert "Secret Files" not in [o.name for o in load_config(plain).trajectory.observers]
    named = config(
        tmp_path,
        "trajectory:\n  observers:\n    secrets:\n      patterns: [id_rsa]\n"
        "      severity_after: 1\n      trigger: {tools: [Read]}\n    tool-tally: true\n",
    )
    observers = load_config(named).trajectory.observers
    assert [o.name for o in observers] == [
        "Deadline", "Plan Progress", "Stall", "Error Cascade", "Drift", "Secret Files", "Tool Tally",
    ]  # fmt: skip
    secrets = observers[5]
    assert secrets.patterns == ("id_rsa",) and secrets.severity_after == 1  # type: ignore[attr-defined]
    assert secrets.trigger.tools == ("Read",)  # type: ignore[attr-defined]
    assert (
        find_observer("secret-files") == find_observer("Secret Files") == find_observer("secrets")
    )


def test_a_plugins_observer_speaks_through_the_engine(tmp_path: Path) -> None:
    engine = Engine(builtin_observers(["secrets"]), session=Session("s"))
    call = ToolCall(call_id="c1", tool="Read", input={"file_path": "/app/.env"}, output="KEY=...")
    dispatch = engine.dispatch(call)
    assert "[Trajectory Assessment - Secret Files]" in dispatch.feedback
    assert "Read touched /app/.env, a file that holds secrets." in dispatch.feedback


def test_an_unknown_name_is_refused_with_its_line_and_every_name_there_is(tmp_path: Path) -> None:
    path = config(tmp_path, "trajectory:\n  observers:\n    stall: false\n    secret-filez: true\n")
    (problem,) = problems(path)
    assert problem.startswith(
        f"{path}:4: trajectory.observers.secret-filez: unknown observer type "
        "(did you mean 'secret-files'?); built-in observers are: deadline, plan-progress, stall, "
        "error-cascade, drift; plugin observers are: secret-files or secrets "
        "(onlooker-example-plugin 0.1.0), tool-tally (onlooker-example-plugin 0.1.0)"
    )
    with pytest.raises(ConfigError, match="unknown observer 'nope'; built-in observers are"):
        get_observer("nope")


def test_field_values_a_plugins_observer_refuses_are_problems_naming_the_plugin(
    tmp_path: Path,
) -> None:
    path = config(
        tmp_path,
        "trajectory:\n  observers:\n    secrets:\n      patterns: []\n"
        "    tool-tally:\n      function: 3\n",
    )
    assert problems(path) == [
        f"{path}:4: trajectory.observers.secrets: plugin onlooker-example-plugin 0.1.0 (example = "
        "onlooker_example_plugin:register_observers) failed to build it: ValueError: patterns: "
        "name at least one file pattern",
        f"{path}:6: trajectory.observers.tool-tally.function: a field of type ObserverFunction "
        "cannot be set in a config file",
    ]


BROKEN_IMPORT = "import a_module_that_is_not_installed\n"

FAILS_TO_BUILD = """\
from dataclasses import dataclass


@dataclass(frozen=True)
class Fragile:
    name: str = "Fragile"

    def __post_init__(self):
        raise RuntimeError("needs a server")

    def should_run(self, ctx):
        return True

    def observe(self, ctx):
        return None


def register(register):
    register(Fragile)
"""

TAKES_A_BUILT_IN_NAME = """\
from onlooker import observer


@observer(name="Stall")
def stall(ctx):
    return "mine"


@observer(name="Loud", trigger=None)
def loud(ctx):
    return "loud"


def register(register):
    register(loud, aliases=["cascade"])
    register(stall)
"""


def test_plugins_that_fail_are_logged_and_named_and_the_others_still_load(
    tmp_path: Path, write_package: WritePackage, caplog: pytest.LogCaptureFixture
) -> None:
    write_package("pkg-broken", BROKEN_IMPORT, {plugins.OBSERVERS: "register"})
    write_package("pkg-fragile", FAILS_TO_BUILD, {plugins.OBSERVERS: "register"})
    write_package("pkg-greedy", TAKES_A_BUILT_IN_NAME, {plugins.OBSERVERS: "register"})
    with caplog.at_level(logging.ERROR, logger="onlooker.plugins"):
        assert get_observer("secrets").name == "Secret Files"
    failures = {f.plugin.package: f.error for f in plugins.loaded(plugins.OBSERVERS).failures}  # type: ignore[union-attr]
    assert failures == {
        "pkg-broken 1.0": "ModuleNotFoundError: No module named 'a_module_that_is_not_installed'",
        "pkg-fragile 1.0": "RuntimeError: needs a server",
        "pkg-greedy 1.0": "PluginError: observer 'Loud': the name 'cascade' is taken",
    }
    logged = [r.getMessage() for r in caplog.records]
    assert len(logged) == 3 and all("failed to load" in m for m in logged)
    path = config(tmp_path, "trajectory:\n  observers:\n    fragile: true\n")
    (problem,) = problems(path)
    assert "unknown observer type; built-in observers are" in problem
    assert "plugins that failed to load: pkg-broken 1.0 (pkg-broken = pkg_broken:register): " \
        "ModuleNotFoundError" in problem  # fmt: skip
    assert (
        "pkg-fragile 1.0 (pkg-fragile = pkg_fragile:register): RuntimeError: needs a server"
        in problem
    )


def test_a_plugin_installed_after_the_first_look_is_found_by_its_name(
    write_package: WritePackage,
) -> None:
    assert find_observer("late") is None
    write_package("pkg-late", 'from onlooker import observer\n\n'
                  'def register(register):\n    register(observer(name="Late")(lambda ctx: None))\n',
                  {plugins.OBSERVERS: "register"})  # fmt: skip
    found = find_observer("late")
    assert found is not None and found.plugin is not None and found.plugin.package == "pkg-late 1.0"
