"""Where commands look and write, run as the real console script: `report` into the data home,
an unknown `--project` refused, `doctor` from a subfolder sees the project's install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ONLOOKER = str(Path(sys.executable).with_name("onlooker"))


def onlooker(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ONLOOKER, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    (folder / "src" / "deep").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    done = onlooker("observations", "add", "--observer", "Stall", "a loop", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder


def test_report_writes_into_the_data_home_and_says_where(
    project: Path, onlooker_home: Path
) -> None:
    done = onlooker("report", cwd=project)
    assert done.returncode == 0, done.stderr
    written = Path(done.stdout.strip().rsplit(": ", 1)[1])
    assert written.parent == onlooker_home / "reports" and written.is_file()
    assert list(project.rglob("*.html")) == []  # nothing dropped into the working folder


@pytest.mark.parametrize(
    "command",
    [
        ["status"],
        ["observations", "list"],
        ["observations", "search", "loop"],
        ["side-effects"],
        ["memory", "search", "loop"],
        ["report"],
    ],
)
def test_an_unknown_project_is_an_error(command: list[str], project: Path) -> None:
    done = onlooker(*command, "--project", "shpo", cwd=project)
    assert done.returncode == 2, done.stdout
    assert "--project: the store" in done.stderr and "'shpo'" in done.stderr
    assert "its projects: shop" in done.stderr
    assert onlooker(*command, "--project", "shop", cwd=project).returncode == 0


@pytest.mark.parametrize(
    "command",
    [
        ["observations", "add", "--observer", "Stall", "filed under a typo"],
        ["observations", "call", '{"operation": "list"}'],
        ["observer", "status"],
        ["issues", "--no-github"],
        ["mcp", "--text-only"],
    ],
)
def test_commands_that_write_refuse_an_unknown_project_too(
    command: list[str], project: Path, onlooker_home: Path
) -> None:
    done = onlooker(*command, "--project", "shpo", cwd=project)
    assert done.returncode == 2, done.stdout
    assert "nothing of a project 'shpo'" in done.stderr and "its projects: shop" in done.stderr
    listed = json.loads(onlooker("status", "--json", cwd=project).stdout)
    assert [o["content"] for o in listed["observations"]] == ["a loop"]  # nothing filed


def test_a_project_folder_path_designates_its_project(project: Path, tmp_path: Path) -> None:
    added = onlooker("observations", "add", "--observer", "Stall", "from elsewhere",
                     "--project", str(project / "src"), cwd=tmp_path)  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = json.loads(onlooker("status", "--json", cwd=project).stdout)
    assert sorted(o["content"] for o in listed["observations"]) == ["a loop", "from elsewhere"]


@pytest.mark.parametrize("command", [["doctor"], ["install", "claude-code"]])
def test_a_project_folder_that_does_not_exist_is_an_error(
    command: list[str], tmp_path: Path
) -> None:
    done = onlooker(*command, "--project", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert done.returncode == 2 and "does not exist" in done.stderr


def test_doctor_from_a_subfolder_sees_the_install_at_the_root(project: Path) -> None:
    installed = onlooker("install", "claude-code", "--no-mcp", cwd=project / "src" / "deep")
    assert installed.returncode == 0, installed.stderr
    assert (project / ".claude" / "settings.local.json").is_file()  # at the root, as the store
    report = json.loads(onlooker("doctor", "--json", cwd=project / "src" / "deep").stdout)
    (settings,) = report["installed_hooks"]
    assert os.path.samefile(settings, project / ".claude" / "settings.local.json")
