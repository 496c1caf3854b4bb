"""A config error in the real opencode: the person is told (opencode's log, a toast in its TUI)
with FILE:LINE: KEY, once per session, and the model is not."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opencode import Opencode

from onlooker.store.home import journal_path, project_for
from onlooker.testing import ScriptedEndpoint

pytestmark = pytest.mark.slow

NOTICE = "onlooker: the project's config has 1 problem"


def reply(body: dict[str, Any]) -> str:
    return "Config" if not body.get("tools") else "Nothing to do."


def test_a_config_error_is_told_to_the_opencode_user_not_the_model(opencode: Opencode) -> None:
    opencode.onlooker("install", "opencode")
    (opencode.project / ".onlooker" / "config.yaml").write_text("memory:\n  enabeld: true\n")
    with ScriptedEndpoint(reply=reply) as endpoint:
        opencode.prepare(endpoint)
        first = opencode.run("Look around.")
        again = opencode.run("And again.", "--continue")
    assert first.stderr.count(NOTICE) == 1
    assert "config.yaml:2: memory.enabeld" in first.stderr
    folder = journal_path(opencode.onlooker_home, project_for(opencode.project), "x").parent
    assert len([p for p in folder.glob("ses_*.jsonl")]) == 1  # one session, continued
    assert NOTICE not in again.stderr  # that session was told already
    assert "enabeld" not in json.dumps(endpoint.requests)
