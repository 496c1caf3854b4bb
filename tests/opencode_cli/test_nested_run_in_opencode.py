"""The re-entrancy guard in the real opencode: in a run with ONLOOKER_NESTED set (a model call
onlooker makes through the user's opencode, onlooker.llm.opencode), onlooker's plugin does
nothing, even where the run loads it and onlooker's hook service is up to answer it."""

from __future__ import annotations

import subprocess

import pytest
from opencode import BINARY, Opencode

from onlooker.daemon.hookd import running_pid
from onlooker.store.home import journal_path, project_for
from onlooker.testing import ScriptedEndpoint

pytestmark = pytest.mark.slow


def sessions(opencode: Opencode) -> list[str]:
    folder = journal_path(opencode.onlooker_home, project_for(opencode.project), "x").parent
    return sorted(p.stem for p in folder.glob("ses_*.jsonl")) if folder.is_dir() else []


def test_the_plugin_does_nothing_in_a_nested_run(opencode: Opencode) -> None:
    opencode.onlooker("install", "opencode")
    with ScriptedEndpoint(reply="Nothing to do.") as endpoint:
        opencode.prepare(endpoint)
        opencode.run("Look around.")  # not nested: onlooker observes it, its service stays up
        observed = sessions(opencode)
        assert len(observed) == 1 and running_pid(opencode.onlooker_home) is not None
        nested = subprocess.run(
            [str(BINARY), "run", "--print-logs", "Look around."], cwd=opencode.project,
            env={**opencode.env, "ONLOOKER_NESTED": "1"}, capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
        assert nested.returncode == 0, nested.stderr[-3000:]
    assert sessions(opencode) == observed  # the nested run's session was not observed
