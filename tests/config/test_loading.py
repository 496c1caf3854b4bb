"""Loading project configs: the schema of specs/config.md, the shipped examples, every problem with
its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from onlooker.config import ConfigInvalid, load_config, load_project, project_root
from onlooker.errors import ConfigError
from onlooker.observers import DeadlineObserver, StallObserver
from onlooker.reviewers.execution import Execution
from onlooker.reviewers.watch import ConversationTarget, FilesTarget

EXAMPLES = Path(__file__).parents[2] / "examples" / "config"


def write(folder: Path, text: str, name: str = "onlooker.yaml") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def problems(path: Path) -> list[tuple[int, str, str]]:
    with pytest.raises(ConfigInvalid) as caught:
        load_config(path)
    assert all(p.file == str(path) for p in caught.value.problems)
    return [(p.line, p.key, p.message) for p in caught.value.problems]


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_example_validates(example: Path) -> None:
    config = load_config(example)
    assert config.path == example.absolute()
    assert config.trajectory.observers


def test_the_complete_example_reads_field_for_field() -> None:
    config = load_config(EXAMPLES / "complete.yaml")
    assert [m.module for m in config.tools] == ["tool-observations"]
    assert [m.module for m in config.behaviors] == [
        "hooks-observations",
        "hooks-observations-display",
    ]
    assert [(h.trigger, h.priority, h.event) for h in config.hooks] == [
        ("response:complete", 5, "turn_ended")
    ]
    assert config.execution == Execution("parallel", 10, 30.0, "skip")
    scanner, security, logic = config.reviewers
    assert scanner.name == "Quick Scanner" and scanner.timeout == 15.0
    assert scanner.model == "anthropic:claude-3-5-haiku"
    assert scanner.watch == (FilesTarget(("src/**/*.py", "tests/**/*.py")),)
    assert security.watch == (FilesTarget(("src/**/*.py",)), ConversationTarget(True, True))
    assert security.metadata == {"category": "security"}
    assert "CWE-89" in security.focus and security.focus.endswith("checks\n")
    assert logic.watch == (ConversationTarget(True, True),)
    assert config.display.style == "progress_bar"
    assert config.review_trigger.on_event == ("turn_ended",)


def test_pattern_5_turns_on_issue_filing_with_the_defaults() -> None:
    issues = load_config(EXAMPLES / "pattern5-issues.yaml").issues
    assert issues is not None
    assert issues.severities == ("critical", "high") and issues.issue_type == "bug"
    assert issues.auto_assign and not issues.github
    assert issues.file == ".onlooker/issues.md"


def test_trajectory_options_set_thresholds_turn_observers_off_and_give_a_deadline() -> None:
    options = load_config(EXAMPLES / "trajectory.yaml").trajectory
    names = [o.name for o in options.observers]
    assert names == ["Deadline", "Plan Progress", "Stall", "Error Cascade"]
    assert options.observers[0] == DeadlineObserver(warning_threshold_seconds=300)
    stall = options.observers[2]
    assert isinstance(stall, StallObserver)
    assert (stall.window, stall.repeat_warn, stall.repeat_escalate) == (12, 3, 5)
    assert stall.undo_warn == StallObserver().undo_warn
    assert options.deadline_minutes == 45 and options.deadline is not None
    assert options.deadline.total_seconds() == 45 * 60


def test_a_trigger_can_be_set_per_observer(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "trajectory:\n  observers:\n    drift:\n      trigger: {every_n_calls: 3, on_event: [turn_ended]}\n",
    )
    drift = next(o for o in load_config(path).trajectory.observers if o.name == "Drift")
    assert drift.trigger.every_n_calls == 3  # type: ignore[attr-defined]
    assert drift.trigger.on_event == ("turn_ended",)  # type: ignore[attr-defined]


BAD = """\
tools:
  - module: tool-observationz
behaviors:
  - module: hooks-observations
    config:
      execution:
        mode: parallel_sync
        max_concurrent: ten
        on_timeout: later
      hookz: []
      observers:
        - name: Quick
          role: r
          focus: f
          model: gpt5
          watch:
            - type: filez
              paths: ["x"]
trajectory:
  observers:
    stal: {window: 3}
    drift: {windw: 3}
"""


def test_a_bad_config_lists_every_problem_with_file_line_key_and_what_is_allowed(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, BAD)
    found = problems(path)
    keys = [(line, key) for line, key, _ in found]
    assert keys == [
        (2, "tools[0].module"),
        (8, "behaviors[0].config.execution.max_concurrent"),
        (9, "behaviors[0].config.execution.on_timeout"),
        (10, "behaviors[0].config.hookz"),
        (15, "behaviors[0].config.observers[0].model"),
        (17, "behaviors[0].config.observers[0].watch[0].type"),
        (21, "trajectory.observers.stal"),
        (22, "trajectory.observers.drift.windw"),
    ]
    messages = dict(((line, key), message) for line, key, message in found)
    assert "did you mean 'tool-observations'" in messages[(2, "tools[0].module")]
    assert "whole number" in messages[(8, "behaviors[0].config.execution.max_concurrent")]
    assert "'ten'" in messages[(8, "behaviors[0].config.execution.max_concurrent")]
    assert "one of: skip, fail" in messages[(9, "behaviors[0].config.execution.on_timeout")]
    assert "did you mean 'hooks'" in messages[(10, "behaviors[0].config.hookz")]
    assert "provider:model" in messages[(15, "behaviors[0].config.observers[0].model")]
    assert (
        "one of: files, conversation"
        in messages[(17, "behaviors[0].config.observers[0].watch[0].type")]
    )
    assert (
        "unknown observer type (did you mean 'stall'?)"
        in messages[(21, "trajectory.observers.stal")]
    )
    with pytest.raises(ConfigInvalid) as caught:
        load_config(path)
    assert str(caught.value).startswith("8 problems in the onlooker config:")
    assert f"{path}:8: behaviors[0].config.execution.max_concurrent:" in str(caught.value)


def test_observer_fields_are_checked(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
behaviors:
  - module: hooks-observations
    config:
      observers:
        - name: A
          role: r
          focus: f
          model: local:smollm2
          timeout: soon
          watch:
            - type: conversation
              paths: [src]
        - name: A
          role: r
          model: local:smollm2
          watch: []
        - name: Stall
          role: r
          focus: f
          model: ollama:qwen2.5
          enabled: maybe
          watch:
            - type: files
        - type: stall
""",
    )
    keys = {(line, key): message for line, key, message in problems(path)}
    assert "above 0" in keys[(9, "behaviors[0].config.observers[0].timeout")]
    assert "does not take `paths`" in keys[(12, "behaviors[0].config.observers[0].watch[0].paths")]
    assert "missing focus" in keys[(13, "behaviors[0].config.observers[1]")]
    assert "at least one target" in keys[(16, "behaviors[0].config.observers[1].watch")]
    assert "true or false" in keys[(21, "behaviors[0].config.observers[2].enabled")]
    assert "needs `paths:`" in keys[(23, "behaviors[0].config.observers[2].watch[0]")]
    assert (
        "built-in observers such as stall are set under trajectory.observers"
        in keys[(24, "behaviors[0].config.observers[3].type")]
    )


def test_duplicate_and_builtin_reviewer_names_are_refused(tmp_path: Path) -> None:
    reviewer = "        - {name: %s, role: r, focus: f, model: 'local:smollm2', watch: [{type: conversation}]}\n"
    path = write(
        tmp_path,
        "behaviors:\n  - module: hooks-observations\n    config:\n      observers:\n"
        + reviewer % "Twin"
        + reviewer % "Twin"
        + reviewer % "Stall",
    )
    messages = [(line, message) for line, _, message in problems(path)]
    assert messages[0][0] == 6 and "already the name of" in messages[0][1]
    assert messages[1][0] == 7 and "built-in observer" in messages[1][1]


def test_yaml_syntax_errors_and_duplicate_keys_name_their_line(tmp_path: Path) -> None:
    path = write(tmp_path, "trajectory:\n  deadline_minutes: 5\n  observers: [stall\n")
    [(line, key, message)] = problems(path)
    assert line == 4 and key == "" and message.startswith("not valid YAML")
    path = write(tmp_path, "trajectory:\n  deadline_minutes: 5\n  deadline_minutes: 6\n")
    assert problems(path) == [(3, "trajectory.deadline_minutes", "appears twice (first on line 2)")]


def test_unknown_top_level_keys_and_hooks(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "behavior: []\nbehaviors:\n  - module: hooks-observations\n    config:\n"
        "      hooks:\n        - trigger: response:completed\n        - {trigger: message:received, tools: [Bash]}\n",
    )
    found = problems(path)
    assert found[0][:2] == (1, "behavior") and "did you mean 'behaviors'" in found[0][2]
    assert found[1][:2] == (6, "behaviors[0].config.hooks[0].trigger")
    assert "did you mean 'response:complete'" in found[1][2]
    assert found[2][:2] == (7, "behaviors[0].config.hooks[1].tools")


def test_hooks_map_to_event_kinds_and_tool_patterns(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "behaviors:\n  - module: hooks-observations\n    config:\n      hooks:\n"
        "        - trigger: message:received\n"
        "        - {trigger: 'tool:post', tools: [Write, Edit], priority: 1}\n"
        "        - trigger: 'marker:ReleaseCheck'\n",
    )
    trigger = load_config(path).review_trigger
    assert trigger.on_event == ("user_prompt", "ReleaseCheck")
    assert trigger.tools == ("Write", "Edit")


def test_the_issues_file_must_stay_inside_the_project(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "behaviors:\n  - module: hooks-observations\n    config:\n      post_processing:\n"
        "        create_issues_for:\n          severity: [critical, urgent]\n"
        "          file: ../elsewhere.md\n",
    )
    found = problems(path)
    assert [(line, key) for line, key, _ in found] == [
        (6, "behaviors[0].config.post_processing.create_issues_for.severity"),
        (7, "behaviors[0].config.post_processing.create_issues_for.file"),
    ]


def test_a_project_without_a_config_gets_the_defaults(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    assert project_root(tmp_path / "src" / "pkg") == tmp_path
    config = load_project(tmp_path / "src" / "pkg")
    assert config.path is None and config.root == tmp_path
    assert config.reviewers == () and config.execution == Execution()
    assert len(config.trajectory.observers) == 5


def test_dot_onlooker_config_wins_over_onlooker_yaml(tmp_path: Path) -> None:
    write(tmp_path, "trajectory: {deadline_minutes: 5}\n")
    assert load_project(tmp_path).trajectory.deadline_minutes == 5
    inner = write(tmp_path, "trajectory: {deadline_minutes: 9}\n", ".onlooker/config.yaml")
    config = load_project(tmp_path)
    assert config.path == inner and config.root == tmp_path
    assert config.trajectory.deadline_minutes == 9


def test_an_empty_file_is_the_defaults_and_a_missing_one_is_an_error(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "# nothing yet\n")).reviewers == ()
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_config(tmp_path / "absent.yaml")
    assert problems(write(tmp_path, "- a\n- b\n"))[0][2].startswith("must be a mapping")


def test_the_memory_section_is_checked_with_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "onlooker.yaml"
    path.write_text("memory:\n  maxTokens: ten\n  recencyDays: 0\n  colour: red\n  model: gtp-4o\n")
    with pytest.raises(ConfigInvalid) as caught:
        load_config(path)
    shown = [str(p) for p in caught.value.problems]
    assert shown[0].startswith(f"{path}:2: memory.maxTokens: must be a whole number")
    assert shown[1].startswith(
        f"{path}:3: memory.recencyDays: must be a whole number of at least 1"
    )
    assert shown[2].startswith(f"{path}:4: memory.colour: unknown key")
    assert "enabled, maxObservations, maxTokens" in shown[2]
    assert shown[3].startswith(f"{path}:5: memory.model: 'gtp-4o' is not a model string")
    path.write_text("memory:\n  maxObservations: 3\n  model: local:smollm2\n")
    memory = load_config(path).memory
    assert (memory.max_observations, memory.max_tokens, memory.model) == (3, 500, "local:smollm2")
    assert load_config(path).to_dict()["memory"]["maxObservations"] == 3


def test_numbers_past_any_sensible_setting_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "onlooker.yaml"
    path.write_text("trajectory:\n  deadline_minutes: 10000000000\n")
    with pytest.raises(ConfigInvalid) as caught:
        load_config(path)
    (problem,) = caught.value.problems
    assert str(problem).startswith(f"{path}:2: trajectory.deadline_minutes: must be a number")
    assert "at most 1e+06" in str(problem)
