"""`onlooker install claude-code --plugin DIR`: a plugin of its own, or merged into someone's with a
backup, never replacing it; `uninstall --plugin DIR` puts the folder back as it was."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from onlooker.core.assessment import Finding
from onlooker.core.message import INTRODUCTION
from onlooker.hosts.claude_code.hook_input import HOOK_EVENTS
from onlooker.hosts.claude_code.install import installed_hooks
from onlooker.mcp import Tools
from onlooker.store import Store

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
TEAM_PLUGIN = {
    ".claude-plugin/plugin.json": '{"name": "team-tools", "version": "2.0.0"}\n',
    "hooks/hooks.json": json.dumps(
        {
            "description": "team hooks",
            "hooks": {
                "PostToolUse": [
                    {"matcher": "Edit", "hooks": [{"type": "command", "command": "lint.sh"}]}
                ]
            },
        },
        indent=4,
    ),
    ".mcp.json": '{"mcpServers": {"docs": {"command": "docs-server"}}}\n',
    "scripts/lint.sh": "#!/bin/sh\nexit 0\n",
}


def onlooker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ONLOOKER, *args], capture_output=True, text=True, timeout=60)


def plugin(*args: str) -> dict[str, Any]:
    done = onlooker(*args, "--json")
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def tree(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): path.read_text()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def make(folder: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)


def test_a_new_plugin_runs_through_claude_plugin_root_and_goes_away_again(tmp_path: Path) -> None:
    folder = tmp_path / "onlooker-plugin"
    report = plugin("install", "claude-code", "--plugin", str(folder))
    assert str(folder / ".mcp.json") in report["files"]
    assert json.loads((folder / ".claude-plugin/plugin.json").read_text())["name"] == "onlooker"
    hooks = json.loads((folder / "hooks/hooks.json").read_text())["hooks"]
    assert set(hooks) == set(HOOK_EVENTS) and hooks["PostToolUse"][0]["matcher"] == "*"
    commands = {h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]}
    assert commands == {'"${CLAUDE_PLUGIN_ROOT}/scripts/onlooker" hook'}
    server = json.loads((folder / ".mcp.json").read_text())["mcpServers"]["onlooker"]
    assert server["command"] == "${CLAUDE_PLUGIN_ROOT}/scripts/onlooker"
    assert server["args"] == ["mcp"]
    launcher = folder / "scripts/onlooker"
    assert os.access(launcher, os.X_OK)
    for path in folder.rglob("*"):  # nothing in the plugin names this machine: it can be committed
        text = path.read_text() if path.is_file() else ""
        assert sys.executable not in text and str(tmp_path) not in text, path
    assert (folder / "commands/status.md").is_file()  # onlooker's own plugin has its commands
    skill = (folder / "skills/onlooker-observations/SKILL.md").read_text()
    assert skill.startswith("---\n") and "\nname: onlooker-observations\n" in skill
    assert INTRODUCTION in skill  # the same line the first message of a session says

    assert plugin("install", "claude-code", "--plugin", str(folder))["files"] == []  # idempotent
    plugin("uninstall", "claude-code", "--plugin", str(folder))
    assert not folder.exists()


def test_a_plugin_of_yours_is_merged_into_with_a_backup_and_restored(
    tmp_path: Path, onlooker_home: Path
) -> None:
    folder = tmp_path / "team-tools"
    make(folder, TEAM_PLUGIN)
    before = tree(folder)
    report = plugin("install", "claude-code", "--plugin", str(folder))
    written = [Path(f) for f in report["files"]]
    # someone else's plugin gets onlooker's hooks and server only: no commands named under it
    assert sorted(f.name for f in written) == [".mcp.json", "hooks.json", "onlooker"]
    assert not (folder / "commands").exists() and not (folder / "skills").exists()
    assert (folder / ".claude-plugin/plugin.json").read_text() == before[
        ".claude-plugin/plugin.json"
    ]
    hooks = json.loads((folder / "hooks/hooks.json").read_text())
    assert hooks["description"] == "team hooks"
    assert hooks["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "lint.sh"
    assert set(installed_hooks(folder / "hooks/hooks.json")) == set(HOOK_EVENTS)
    servers = json.loads((folder / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"docs", "onlooker"}
    backups = [c["backup"] for c in report["changes"] if c["backup"]]
    assert len(backups) == 2 and all(Path(b).is_relative_to(onlooker_home) for b in backups)
    assert {Path(b).read_text() for b in backups} == {
        before["hooks/hooks.json"],
        before[".mcp.json"],
    }

    plugin("uninstall", "claude-code", "--plugin", str(folder))
    assert tree(folder) == before  # byte for byte


def test_a_folder_that_is_no_plugin_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    make(folder, {"README.md": "mine\n"})
    done = onlooker("install", "claude-code", "--plugin", str(folder))
    assert done.returncode == 1
    assert "has no .claude-plugin/plugin.json, so it is no plugin" in done.stderr
    assert tree(folder) == {"README.md": "mine\n"}


def test_what_is_someone_elses_is_refused_and_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "taken"
    make(folder, {**TEAM_PLUGIN, "scripts/onlooker": "#!/bin/sh\necho theirs\n"})
    before = tree(folder)
    done = onlooker("install", "claude-code", "--plugin", str(folder))
    assert done.returncode == 1 and "scripts/onlooker is someone else's file" in done.stderr
    assert tree(folder) == before

    (folder / "scripts/onlooker").unlink()
    make(folder, {".mcp.json": '{"mcpServers": {"onlooker": {"command": "theirs"}}}'})
    before = tree(folder)
    done = onlooker("install", "claude-code", "--plugin", str(folder))
    assert done.returncode == 1 and "mcpServers.onlooker is already taken" in done.stderr
    assert tree(folder) == before  # refused before anything was written


def test_the_plugin_tells_the_agent_how_to_act_on_observations_and_search_memory(
    tmp_path: Path, onlooker_home: Path
) -> None:
    folder = tmp_path / "onlooker-plugin"
    plugin("install", "claude-code", "--plugin", str(folder))
    skill = (folder / "skills/onlooker-observations/SKILL.md").read_text()
    front, body = skill.removeprefix("---\n").split("\n---\n", 1)
    fields = dict(line.split(": ", 1) for line in front.splitlines() if not line.startswith("#"))
    assert fields["name"] == "onlooker-observations"
    assert "acknowledge or resolve them by id" in json.loads(fields["description"])
    flat = " ".join(body.split())
    for said in ("prefix of 4 or more works", "onlooker observations resolve <id> --note",
                 "call `search` with a `query`", "`get_observations` with their `ids`"):  # fmt: skip
        assert said in flat, said
    assert len(body) < 2000  # short: it is loaded into the agent's context

    with Store(onlooker_home) as store:  # each request it shows is one the tool takes
        (made,) = store.create([Finding(content="loop", observer="Stall")], project="app")
    tools = Tools(onlooker_home, "app")
    examples = [json.loads(e) for e in re.findall(r"`(\{.*?\})`", flat)]
    assert [e["operation"] for e in examples] == ["acknowledge", "resolve", "list"]
    for example in examples:
        request = json.loads(json.dumps(example).replace("<id>", made.observation.id[:6]))
        answer = tools.call("observations", request)
        assert not answer.error, answer.text
    tools.close()
    with Store(onlooker_home) as store:
        assert store.get([made.observation.id], "app")[0].finding.status == "resolved"

    (folder / "skills/onlooker-observations/SKILL.md").write_text("---\nname: mine\n---\nMine.\n")
    done = onlooker("install", "claude-code", "--plugin", str(folder))
    assert done.returncode == 1 and "SKILL.md is someone else's skill" in done.stderr
    (folder / "skills/onlooker-observations/SKILL.md").write_text(skill)
    plugin("uninstall", "claude-code", "--plugin", str(folder))
    assert not folder.exists()
