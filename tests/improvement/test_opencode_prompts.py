"""opencode agent prompts: a markdown agent file, or opencode.json's agent.<name>.prompt, inline or
a {file:...} reference; the rest of opencode.json is kept byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onlooker.errors import ImprovementError
from onlooker.improvement import (
    MANAGED_BY,
    SECTION,
    InstructionTarget,
    apply_instructions,
    current_text,
    managed_lines,
    rollback,
)
from onlooker.improvement._jsonc import find_string

CONFIG = """{
    "$schema": "https://opencode.ai/config.json",
    // the agents of this project
    "agent": {
        "zeta": {"mode": "subagent", "prompt": "You explore.\\nQuote \\"exactly\\" – café."},
        "build": {
            "model": "anthropic/claude-sonnet-4",
            "prompt": "{file:./prompts/build.txt}",
            "tools": {"write": true},
        },
    },
    "theme": "dark"
}
"""


def project_with_config(tmp_path: Path, config: str = CONFIG) -> Path:
    (tmp_path / "opencode.json").write_text(config, encoding="utf-8")
    return tmp_path


def test_an_inline_prompt_changes_in_place_and_nothing_else_does(tmp_path: Path) -> None:
    project_with_config(tmp_path)
    target = InstructionTarget.agent(tmp_path, "zeta", host="opencode")
    assert target.path.name == "opencode.json" and target.json_path == ("agent", "zeta", "prompt")
    apply_instructions(target, ["Stop after three searches"])
    after = (tmp_path / "opencode.json").read_text(encoding="utf-8")
    prompt = 'You explore.\\nQuote \\"exactly\\" – café.'
    expected_value = f"{prompt}\\n\\n## {SECTION}\\n{MANAGED_BY}\\n- Stop after three searches"
    assert after == CONFIG.replace(prompt, expected_value)
    assert managed_lines(target) == ["Stop after three searches"]
    assert current_text(target).startswith('You explore.\nQuote "exactly" – café.\n\n## ')


def test_an_inline_prompt_rolls_back_byte_exact_and_keeps_later_edits_elsewhere(
    tmp_path: Path,
) -> None:
    project_with_config(tmp_path)
    target = InstructionTarget.agent(tmp_path, "zeta", host="opencode")
    apply_instructions(target, ["a"])
    rollback(target)
    assert (tmp_path / "opencode.json").read_text(encoding="utf-8") == CONFIG
    apply_instructions(target, ["b"])
    edited = (tmp_path / "opencode.json").read_text().replace('"dark"', '"light"')
    (tmp_path / "opencode.json").write_text(edited)
    rollback(target)
    assert (tmp_path / "opencode.json").read_text() == CONFIG.replace('"dark"', '"light"')


def test_a_file_reference_is_followed(tmp_path: Path) -> None:
    project_with_config(tmp_path)
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "build.txt").write_text("You build.\n")
    target = InstructionTarget.agent(tmp_path, "build", host="opencode")
    assert target.path == (prompts / "build.txt").resolve() and target.json_path is None
    assert target.backups.name == "build@opencode"
    apply_instructions(target, ["Run the tests"])
    assert (prompts / "build.txt").read_text() == (
        f"You build.\n\n## {SECTION}\n{MANAGED_BY}\n- Run the tests\n"
    )
    assert (tmp_path / "opencode.json").read_text() == CONFIG
    rollback(target)
    assert (prompts / "build.txt").read_text() == "You build.\n"


def test_a_reference_outside_the_project_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    project_with_config(project, CONFIG.replace("./prompts/build.txt", "../build.txt"))
    with pytest.raises(ImprovementError, match=r"named by .*opencode\.json agent\.build\.prompt"):
        InstructionTarget.agent(project, "build", host="opencode")


def test_a_markdown_agent_comes_first_and_keeps_its_front_matter(tmp_path: Path) -> None:
    project_with_config(tmp_path)
    agent = tmp_path / ".opencode" / "agents" / "zeta.md"
    agent.parent.mkdir(parents=True)
    front = "---\ndescription: Explores\nmode: subagent\n---\n"
    agent.write_text(front + "You explore.\n")
    target = InstructionTarget.agent(tmp_path, "zeta", host="opencode")
    assert target.path == agent.resolve()
    apply_instructions(target, ["x"])
    assert agent.read_text().startswith(front + "You explore.\n\n## ")


def test_an_agent_without_a_prompt_gets_a_markdown_file(tmp_path: Path) -> None:
    project_with_config(tmp_path)
    target = InstructionTarget.agent(tmp_path, "plan", host="opencode")
    assert target.path == (tmp_path / ".opencode" / "agents" / "plan.md").resolve()
    apply_instructions(target, ["x"])
    assert target.path.read_text() == f"## {SECTION}\n{MANAGED_BY}\n- x\n"


def test_broken_json_is_refused_with_its_line(tmp_path: Path) -> None:
    project_with_config(tmp_path, '{\n  "agent": {"zeta": {"prompt": "x"}\n')
    with pytest.raises(ImprovementError, match=r"opencode\.json:3:1: not JSON"):
        InstructionTarget.agent(tmp_path, "zeta", host="opencode")


def test_a_prompt_removed_by_hand_is_refused_without_writing(tmp_path: Path) -> None:
    project_with_config(tmp_path)
    target = InstructionTarget.agent(tmp_path, "zeta", host="opencode")
    changed = CONFIG.replace('"prompt": "You explore', '"notes": "You explore')
    (tmp_path / "opencode.json").write_text(changed)
    with pytest.raises(ImprovementError, match=r"agent\.zeta\.prompt is no longer a string"):
        apply_instructions(target, ["x"])
    assert (tmp_path / "opencode.json").read_text() == changed


def test_the_span_finder_agrees_with_json(tmp_path: Path) -> None:
    text = json.dumps({"agent": {"a": {"prompt": 'p\u2028"q"', "x": [1, {"prompt": 2}]}}})
    here = tmp_path / "opencode.json"
    span = find_string(text, ("agent", "a", "prompt"), here)
    assert span is not None and span.value == 'p\u2028"q"'
    assert json.loads(text[span.start : span.end]) == span.value
    assert find_string('{"agent": {"a": {"prompt": 3}}}', ("agent", "a", "prompt"), here) is None
    duplicate = '{"agent": {"a": {"prompt": "old", "prompt": "new"}}}'
    assert (
        found := find_string(duplicate, ("agent", "a", "prompt"), here)
    ) and found.value == "new"
    with pytest.raises(ImprovementError, match=r"opencode\.json:1:10: not JSON: text after"):
        find_string('{"a": 1} x', ("a",), here)
