"""The data home and project names, found with the standard library on every platform."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from onlooker.store import data_home, journal_path, project_for
from onlooker.store.home import safe_name


def test_onlooker_home_wins(onlooker_home: Path) -> None:
    assert data_home() == onlooker_home


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("linux", {"XDG_DATA_HOME": "/xdg"}, "/xdg/onlooker"),
        ("linux", {"XDG_DATA_HOME": "relative/ignored"}, "~/.local/share/onlooker"),
        ("linux", {}, "~/.local/share/onlooker"),
        ("darwin", {}, "~/Library/Application Support/onlooker"),
        ("win32", {"LOCALAPPDATA": "/appdata/local"}, "/appdata/local/onlooker"),
        ("win32", {}, "~/AppData/Local/onlooker"),
    ],
)
def test_platform_data_dirs(
    monkeypatch: pytest.MonkeyPatch, platform: str, env: dict[str, str], expected: str
) -> None:
    monkeypatch.delenv("ONLOOKER_HOME")
    for name in ("XDG_DATA_HOME", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "platform", platform)
    assert data_home() == Path(expected).expanduser()


def test_the_project_is_the_nearest_folder_with_a_marker(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "api").mkdir(parents=True)
    assert project_for(root / "src" / "api") == "shop"
    assert project_for(root) == "shop"
    loose = tmp_path / "scratch" / "notes"
    loose.mkdir(parents=True)
    assert project_for(loose) in {"notes", tmp_path.name}  # tmp may sit inside a checkout


def test_journal_paths_are_safe_and_do_not_collide(tmp_path: Path) -> None:
    assert journal_path(tmp_path, "demo", "s1") == tmp_path / "journals/demo/s1.jsonl"
    assert journal_path(tmp_path, "demo") == tmp_path / "journals/demo/_manual.jsonl"
    assert safe_name("a/b") != safe_name("a:b")
    assert "/" not in safe_name("../../etc/passwd")
    assert safe_name("_manual") != "_manual"  # no session can take the manual journal's name
