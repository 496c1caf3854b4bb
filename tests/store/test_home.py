"""The data home (platformdirs in the store, the standard library in the hook client, one answer)
and project names."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import platformdirs.macos
import platformdirs.unix
import pytest

from onlooker.daemon import client
from onlooker.store import data_home, journal_path, project_for
from onlooker.store.home import safe_name
from onlooker.store.identity import display_name, project_identity


def test_onlooker_home_wins(onlooker_home: Path) -> None:
    assert data_home() == onlooker_home


CASES = [
    ("linux", {"XDG_DATA_HOME": "/xdg"}, "/xdg/onlooker"),
    ("linux", {"XDG_DATA_HOME": "relative/ignored"}, "~/.local/share/onlooker"),
    ("linux", {"XDG_DATA_HOME": ""}, "~/.local/share/onlooker"),
    ("linux", {}, "~/.local/share/onlooker"),
    ("darwin", {}, "~/Library/Application Support/onlooker"),
    ("darwin", {"XDG_DATA_HOME": "/xdg"}, "/xdg/onlooker"),
    ("darwin", {"XDG_DATA_HOME": "relative/ignored"}, "~/Library/Application Support/onlooker"),
]


@pytest.mark.parametrize(("platform", "env", "expected"), CASES)
def test_the_store_and_the_hook_client_find_the_same_platform_data_dir(
    monkeypatch: pytest.MonkeyPatch, platform: str, env: dict[str, str], expected: str
) -> None:
    monkeypatch.delenv("ONLOOKER_HOME")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "platform", platform)  # what the hook client looks at
    platform_dirs = platformdirs.macos.MacOS if platform == "darwin" else platformdirs.unix.Unix
    monkeypatch.setattr(platformdirs, "PlatformDirs", platform_dirs)  # what platformdirs chose
    assert data_home() == Path(expected).expanduser()
    assert Path(client.data_home()) == data_home()


@pytest.mark.parametrize(
    "env",
    [
        {"ONLOOKER_HOME": "~/elsewhere"},
        {"XDG_DATA_HOME": "/srv/data"},
        {"XDG_DATA_HOME": "not/absolute"},
        {"XDG_DATA_HOME": "/srv/data", "ONLOOKER_HOME": "/srv/onlooker"},
        {},
    ],
)
def test_the_hook_client_run_by_path_agrees_with_the_store(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The client as a hook runs it (`python -I -S <path>`, standard library only) and the store
    in a normal interpreter, under the same environment."""
    base = {k: v for k, v in os.environ.items() if k not in ("ONLOOKER_HOME", "XDG_DATA_HOME")}
    environment = {**base, "HOME": str(tmp_path), **env}
    hook = f"import runpy; print(runpy.run_path({client.__file__!r})['data_home']())"
    store = "from onlooker.store import data_home; print(data_home())"
    answers = [
        subprocess.run(
            [sys.executable, *flags, "-c", code],
            env=environment, capture_output=True, text=True, check=True,
        ).stdout.strip()
        for flags, code in ((["-I", "-S"], hook), ([], store))
    ]  # fmt: skip
    assert Path(answers[0]) == Path(answers[1])
    assert answers[0].startswith(str(tmp_path)) or answers[0].startswith("/srv/")


def test_the_project_is_the_nearest_folder_with_a_marker(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "api").mkdir(parents=True)
    key = project_for(root / "src" / "api")
    assert key == project_for(root) and display_name(key) == "shop" and key != "shop"
    assert project_identity(root / "src").root == root.resolve()
    loose = tmp_path / "scratch" / "notes"
    loose.mkdir(parents=True)
    assert display_name(project_for(loose)) in {"notes", tmp_path.name}  # tmp may be in a checkout


def test_journal_paths_are_safe_and_do_not_collide(tmp_path: Path) -> None:
    assert journal_path(tmp_path, "demo", "s1") == tmp_path / "journals/demo/s1.jsonl"
    assert journal_path(tmp_path, "demo") == tmp_path / "journals/demo/_manual.jsonl"
    assert safe_name("a/b") != safe_name("a:b")
    assert "/" not in safe_name("../../etc/passwd")
    assert safe_name("_manual") != "_manual"  # no session can take the manual journal's name


def test_a_shared_store_keys_two_clones_of_one_remote_alike(
    tmp_path: Path, onlooker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clones = [tmp_path / machine / "api" for machine in ("laptop", "desktop")]
    for clone in clones:
        (clone / ".git").mkdir(parents=True)
        (clone / ".git" / "config").write_text(
            '[remote "origin"]\n\turl = git@github.com:Acme/API.git\n'
        )
    local = [project_for(clone) for clone in clones]
    assert local[0] != local[1]  # one data home: each checkout is its own project
    monkeypatch.setenv("ONLOOKER_STORE_URL", "postgresql://team@db.example/onlooker")
    shared = [project_for(clone) for clone in clones]
    assert shared[0] == shared[1] != local[0] and display_name(shared[0]) == "api"
    assert project_for(tmp_path / "scratch") == project_identity(tmp_path / "scratch").key
