"""The observer's slash commands in the Claude Code plugin folder: one valid command file per
observer command, whose shell block runs the real `onlooker observer` through the plugin's
launcher, as Claude Code runs it (`${CLAUDE_PLUGIN_ROOT}` and `$ARGUMENTS` substituted)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from onlooker.scoring import HELP

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
NAMES = [
    "accept", "apply", "auto", "config", "help", "history", "rejections", "reject", "rollback",
    "score", "scores", "status", "steer", "suggest", "unreject",
]  # fmt: skip
SHELL_BLOCK = re.compile(r"```!\n([\s\S]*?)\n```|(?<=\s)!`([^`]+)`")
"""Claude Code's shell blocks: fenced (```!) or inline (!`…`)."""


def shell_blocks(body: str) -> list[str]:
    return [fenced or inline for fenced, inline in SHELL_BLOCK.findall(body)]


def front_matter_and_body(path: Path) -> tuple[dict[str, object], str]:
    _, head, body = path.read_text().split("---\n", 2)
    data = yaml.safe_load(head)
    assert isinstance(data, dict)
    return data, body


def run_command(plugin: Path, project: Path, name: str, arguments: str = "") -> str:
    """The command's shell block run as Claude Code runs it (`$ARGUMENTS` pasted in as typed, a
    `!` after a space escaped): the output the model is shown."""
    _, body = front_matter_and_body(plugin / "commands" / f"{name}.md")
    [shell] = shell_blocks(body)
    arguments = re.sub(r"(^|\s)!", r"\1\\!", arguments)
    shell = shell.replace("${CLAUDE_PLUGIN_ROOT}", str(plugin)).replace("$ARGUMENTS", arguments)
    env = {**os.environ, "ONLOOKER_HOME": str(project.parent / "home")}
    env["PATH"] = f"{Path(ONLOOKER).parent}{os.pathsep}{env['PATH']}"  # as pipx puts it there
    done = subprocess.run(["bash", "-c", shell], cwd=project, env=env, capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    return done.stdout


def install_plugin(folder: Path) -> None:
    done = subprocess.run([ONLOOKER, "install", "claude-code", "--plugin", str(folder), "--json"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_every_observer_command_is_a_valid_plugin_command(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    install_plugin(plugin)
    files = sorted(p.stem for p in (plugin / "commands").glob("*.md"))
    assert files == sorted(NAMES)
    for name in NAMES:
        meta, body = front_matter_and_body(plugin / "commands" / f"{name}.md")
        assert isinstance(meta["description"], str) and meta["description"]
        assert meta["disable-model-invocation"] is True
        [shell] = shell_blocks(body)
        launcher = '"${CLAUDE_PLUGIN_ROOT}/scripts/onlooker"'
        if name == "status":  # what `onlooker status` shows, in the terminal's words
            assert "scripts/onlooker status:" in str(meta["allowed-tools"])
            assert shell.startswith(f"{launcher} status ")
            continue
        assert "scripts/onlooker observer" in str(meta["allowed-tools"])
        typed = "argument-hint" in meta
        observer = "status" if name == "scores" else name
        assert shell.startswith(f"{launcher} observer{'-typed' if typed else ''} {observer} ")
        assert ("$ARGUMENTS" in shell) is typed
        assert sys.executable not in body  # portable: only the launcher names this machine
    assert "argument-hint" not in front_matter_and_body(plugin / "commands" / "apply.md")[0]


def test_the_commands_reach_the_observer_commands_through_the_launcher(tmp_path: Path) -> None:
    plugin, project = tmp_path / "plugin", tmp_path / "proj"
    install_plugin(plugin)
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "config.yaml").write_text("scoring:\n  model: openai:gpt-4o-mini\n")
    assert run_command(plugin, project, "help").strip() == HELP
    assert "0 sessions" in run_command(plugin, project, "scores")
    assert "Observations · proj" in run_command(plugin, project, "status")
    run_command(plugin, project, "steer", "favour small diffs")
    assert run_command(plugin, project, "steer") == "Guidance: favour small diffs\n"
    run_command(plugin, project, "auto", "prompts on")
    assert "auto (agent prompts): on" in run_command(plugin, project, "config")
    run_command(plugin, project, "reject", "runs no tests")
    assert run_command(plugin, project, "rejections") == "- runs no tests\n"
    quoted = """say "why", don't `rm` $HOME; use --json ! * sparingly"""
    run_command(plugin, project, "steer", quoted)  # typed text is data, never shell
    assert run_command(plugin, project, "steer") == f"Guidance: {quoted}\n"
    refused = run_command(plugin, project, "accept", "1")
    assert "onlooker: no pending improvements" in refused  # errors reach the user too


def test_uninstall_takes_the_commands_out_and_someone_elses_plugin_keeps_its_commands(
    tmp_path: Path,
) -> None:
    plugin = tmp_path / "plugin"
    install_plugin(plugin)
    subprocess.run([ONLOOKER, "uninstall", "claude-code", "--plugin", str(plugin)], check=True,
                   capture_output=True, timeout=60)  # fmt: skip
    assert not plugin.exists()
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "team"}))
    (plugin / "commands").mkdir()
    (plugin / "commands" / "status.md").write_text("---\ndescription: ours\n---\nTeam status\n")
    done = subprocess.run([ONLOOKER, "install", "claude-code", "--plugin", str(plugin)],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr  # a team plugin gets onlooker's hooks, not commands
    assert [p.name for p in (plugin / "commands").iterdir()] == ["status.md"]
    assert (plugin / "commands" / "status.md").read_text().endswith("Team status\n")
    assert (plugin / "scripts" / "onlooker").is_file()


def test_apply_and_accept_apply_what_the_person_typed_without_asking(tmp_path: Path) -> None:
    """The shell block runs with no terminal: `/onlooker:apply` and `/onlooker:accept N` pass
    --yes, for a person typing them means it (the CLI alone would only show the change)."""
    from onlooker.scoring import Scores
    from onlooker.store import Store, project_for
    from onlooker.store.score_records import Improvement

    plugin, project = tmp_path / "plugin", tmp_path / "proj"
    install_plugin(plugin)
    (project / ".onlooker").mkdir(parents=True)
    (project / ".onlooker" / "config.yaml").write_text("scoring:\n  model: openai:gpt-4o-mini\n")
    (project / "AGENTS.md").write_text("# Rules\n")
    with Store(tmp_path / "home") as store:
        for n, line in enumerate(("Run the tests", "Read before editing", "Keep diffs small")):
            Scores(store).save(Improvement(id=f"i{n}", project=project_for(str(project)),
                                           target="agents_md", pattern=f"weakness {n}",
                                           text=line))  # fmt: skip
    applied = run_command(plugin, project, "apply")
    assert "AGENTS.md" in applied and "updated, in section" in applied
    assert "for weakness: weakness 0" in applied and "backup:" in applied
    accepted = run_command(plugin, project, "accept", "2")
    assert "+ - Keep diffs small" in accepted and "for weakness: weakness 2" in accepted
    held = (project / "AGENTS.md").read_text()
    assert "- Run the tests" in held and "- Keep diffs small" in held
    assert "Read before editing" not in held
    shown = subprocess.run([ONLOOKER, "observer", "apply"], cwd=project, capture_output=True,
                           text=True, timeout=60,
                           env={**os.environ, "ONLOOKER_HOME": str(tmp_path / "home")})  # fmt: skip
    assert shown.returncode == 1 and "would change AGENTS.md" in shown.stdout  # the CLI asks
    assert "Read before editing" not in (project / "AGENTS.md").read_text()
