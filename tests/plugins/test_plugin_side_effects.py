"""A side effect an installed plugin adds (`onlooker.side_effects`) is named in a project's config,
validated there, and run by the real worker after a hook; a plugin may not take a built-in's name."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from onlooker import plugins
from onlooker.side_effects import Archive, Limits, find_action, plugin_actions
from onlooker.store import Store, project_for

sys.path.insert(0, str(Path(__file__).parents[1] / "daemon"))
from hook_runner import ONLOOKER, answer, make_project
from processes import wait_for

STAMP = """\
def stamp(call, ctx):
    return ctx.archive.write_text(f"stamps/{call.call_id}.txt", f"{call.tool} {call.paths}\\n")


def register(register):
    register("stamp", stamp)
"""
TAKER = """\
def register(register):
    register("save_work_product", lambda call, ctx: None)
"""
CONFIG = "side_effects:\n  rules:\n    - action: stamp\n      tools: [Write]\n"


def test_the_worker_runs_a_plugins_side_effect(
    tmp_path: Path, onlooker_home: Path, write_package: Callable[..., Path]
) -> None:
    write_package("pkg-stamp", STAMP, {plugins.SIDE_EFFECTS: "register"})
    app = make_project(tmp_path, {"onlooker.yaml": CONFIG, "a.txt": "x"})
    valid = subprocess.run([ONLOOKER, "config", "validate", str(app / "onlooker.yaml")],
                           capture_output=True, text=True)  # fmt: skip
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert answer({"session_id": "s-p", "cwd": str(app), "hook_event_name": "PostToolUse",
                   "tool_name": "Write", "tool_use_id": "toolu_1",
                   "tool_input": {"file_path": f"{app}/a.txt"}}) == {}  # fmt: skip
    stamp = Archive(onlooker_home / "archive", project_for(app), "s-p", Limits()).folder / "stamps"
    wait_for(lambda: (stamp / "toolu_1.txt").exists(), what="the plugin's side effect")
    assert (stamp / "toolu_1.txt").read_text() == f"Write ('{app}/a.txt',)\n"
    wait_for(lambda: _saved(onlooker_home, project_for(app)) == [("stamp", "stamps/toolu_1.txt")],
             what="record")  # fmt: skip
    listed = subprocess.run([ONLOOKER, "plugins", "--json"], capture_output=True, text=True)
    mine = [p for p in json.loads(listed.stdout) if p["package"] == "pkg-stamp 1.0"]
    assert [(p["group"], p["adds"]) for p in mine] == [("onlooker.side_effects", ["stamp"])]


def _saved(home: Path, project: str) -> list[tuple[str, str]]:
    with Store(home) as store:
        return [(s.action, s.path) for s in store.effects.saved(project)]


def test_a_plugin_may_not_take_a_built_in_side_effect(
    tmp_path: Path, write_package: Callable[..., Path]
) -> None:
    write_package("pkg-taker", TAKER, {plugins.SIDE_EFFECTS: "register"})
    assert plugin_actions() == {}
    (failure,) = plugins.loaded(plugins.SIDE_EFFECTS).failures  # type: ignore[union-attr]
    assert "side effect 'save_work_product' is built in" in failure.error
    assert find_action("save_work_product").__module__ == "onlooker.side_effects.actions"  # type: ignore[union-attr]
    app = make_project(tmp_path, {"onlooker.yaml": CONFIG.replace("stamp", "stamps")})
    done = subprocess.run([ONLOOKER, "config", "validate", "--json", str(app / "onlooker.yaml")],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode != 0
    (problem,) = json.loads(done.stdout)["problems"]
    assert problem["key"] == "side_effects.rules[0].action" and problem["line"] == 3
    assert "'stamps' is not a side effect; one of: save_work_product" in problem["message"]
