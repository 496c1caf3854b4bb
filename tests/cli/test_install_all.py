"""`onlooker install` with no host: finds the hosts of this machine (HOME, PATH and XDG folders
under tmp), shows what changes, writes nothing without --yes, then installs into each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))


def install(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
           "XDG_CONFIG_HOME": str(home / ".config"), "PATH": "/usr/bin:/bin"}  # fmt: skip
    return subprocess.run([ONLOOKER, "install", *args], cwd=home, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip


def test_it_finds_the_hosts_shows_the_changes_and_asks(tmp_path: Path, onlooker_home: Path) -> None:
    home = tmp_path / "user"
    (home / ".claude").mkdir(parents=True)
    (home / ".config" / "opencode").mkdir(parents=True)
    asked = install(home)
    assert asked.returncode == 1 and "run again with --yes" in asked.stderr
    assert f"claude-code  ({home / '.claude'} exists)" in asked.stdout
    assert f"opencode     ({home / '.config' / 'opencode'} exists)" in asked.stdout
    assert "+ hooks.PostToolUse: " in asked.stdout and "+ mcpServers.onlooker: " in asked.stdout
    assert not (home / ".claude" / "settings.json").exists()  # nothing written

    done = install(home, "--yes")
    assert done.returncode == 0, done.stderr
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert set(settings["hooks"]) >= {"PostToolUse", "SessionStart", "Stop"}
    servers = json.loads((home / ".claude" / ".claude.json").read_text())["mcpServers"]
    assert servers["onlooker"]["command"] == str(onlooker_home / "bin" / "onlooker")
    assert (home / ".config" / "opencode" / "plugins" / "onlooker.ts").is_file()
    assert install(home, "--yes").returncode == 0  # again: nothing changes
    assert json.loads((home / ".claude" / "settings.json").read_text()) == settings


def test_amplifier_alone_gets_told_how_to_load_the_module(tmp_path: Path) -> None:
    """The dev environment has amplifier-core (the amplifier extra): no file of a host to write."""
    home = tmp_path / "bare"
    home.mkdir()
    done = install(home, "--yes")
    assert done.returncode == 0, done.stderr
    assert "amplifier    (amplifier_core is installed)" in done.stdout
    assert "add `hooks-onlooker`" in done.stdout
    assert list(home.iterdir()) == []
