"""A config read for a live session fails safe: each section with a problem takes its defaults."""

from __future__ import annotations

from pathlib import Path

from onlooker.config.tolerant import load_tolerant
from onlooker.memory.settings import MemorySettings

GOOD_TRAJECTORY = "trajectory:\n  deadline_minutes: 30\n  observers: {drift: false}\n"


def read(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "onlooker.yaml"
    path.write_text(text)
    return load_tolerant(path, tmp_path)


def test_a_problem_defaults_only_its_own_section(tmp_path: Path) -> None:
    found = read(tmp_path, GOOD_TRAJECTORY + "memory: {enabeld: false, maxTokens: 10}\n")
    assert found.defaulted == ("memory",)
    assert found.config.memory == MemorySettings()  # maxTokens: 10 is not taken either
    assert found.config.trajectory.deadline_minutes == 30
    assert "Drift" not in [o.name for o in found.config.trajectory.observers]
    (problem,) = found.problems
    assert problem.startswith(f"{tmp_path / 'onlooker.yaml'}:4: memory.enabeld: unknown key")


def test_several_sections_and_a_stray_key(tmp_path: Path) -> None:
    text = GOOD_TRAJECTORY + "scoring: {model: nonsense}\nmemroy: {}\ncompliance: 3\n"
    found = read(tmp_path, text)
    assert found.defaulted == ("scoring", "compliance")
    assert found.config.trajectory.deadline_minutes == 30
    assert [p.split(": ")[1] for p in found.problems] == ["scoring.model", "memroy", "compliance"]


def test_a_stray_key_alone_defaults_nothing(tmp_path: Path) -> None:
    found = read(tmp_path, GOOD_TRAJECTORY + "trajectroy: {}\n")
    assert found.defaulted == () and len(found.problems) == 1
    assert found.config.trajectory.deadline_minutes == 30


def test_a_file_that_is_no_config_gives_the_defaults(tmp_path: Path) -> None:
    for text in ("memory: [1, 2\n", "- a list\n"):
        found = read(tmp_path, text)
        assert found.defaulted == ("*",) and found.problems
        assert found.config.memory == MemorySettings()


def test_a_good_file_has_no_problem(tmp_path: Path) -> None:
    found = read(tmp_path, GOOD_TRAJECTORY)
    assert found.problems == () and found.defaulted == ()
