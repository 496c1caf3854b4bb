"""The `side_effects` and `compliance` sections: the shipped example validates with
`onlooker config validate`, and every wrong value is reported in one pass with its line and key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from onlooker.config import load_config

EXAMPLE = Path(__file__).parents[2] / "examples" / "config" / "side-effects.yaml"
ONLOOKER = str(Path(sys.executable).with_name("onlooker"))
WRONG = """\
side_effects:
  max_log_bytes: 0
  rules:
    - action: save_work_products
    - action: summarize_search
      output: "(unclosed"
    - tools: [Bash]
compliance:
  max_retries: -1
  agents:
    report-writer:
      artifacts:
        - glob: "../outside/*.md"
        - min_size: 10
      timeout: 60
    reviewer: {}
"""


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ONLOOKER, "config", "validate", "--json", str(path)],
                          capture_output=True, text=True)  # fmt: skip


def test_the_example_validates_and_reproduces_the_four_side_effects_and_the_check(
    tmp_path: Path,
) -> None:
    done = validate(EXAMPLE)
    assert done.returncode == 0, done.stdout + done.stderr
    config = load_config(EXAMPLE, tmp_path)
    assert config.side_effects is not None and config.compliance is not None
    assert [r.action for r in config.side_effects.rules] == [
        "save_work_product", "summarize_search", "activity_log", "collect_media",
    ]  # fmt: skip
    rule = config.compliance.rule_for("report-writer")
    assert rule is not None and rule.artifacts[0].glob == "work_products/*.md"
    assert config.compliance.max_retries == 2


def test_every_wrong_value_is_reported_in_one_pass(tmp_path: Path) -> None:
    path = tmp_path / "onlooker.yaml"
    path.write_text(WRONG)
    done = validate(path)
    assert done.returncode != 0
    problems = {(p["line"], p["key"]): p["message"] for p in json.loads(done.stdout)["problems"]}
    assert sorted(problems) == [
        (2, "side_effects.max_log_bytes"),
        (4, "side_effects.rules[0].action"),
        (6, "side_effects.rules[1].output"),
        (7, "side_effects.rules[2]"),
        (9, "compliance.max_retries"),
        (13, "compliance.agents.report-writer.artifacts[0].glob"),
        (14, "compliance.agents.report-writer.artifacts[1]"),
        (15, "compliance.agents.report-writer.timeout"),
        (16, "compliance.agents.reviewer"),
    ]
    assert "did you mean 'save_work_product'" in problems[4, "side_effects.rules[0].action"]
    assert "not a regular expression" in problems[6, "side_effects.rules[1].output"]
    assert "at most 15" in problems[15, "compliance.agents.report-writer.timeout"]
    assert "needs at least one of" in problems[16, "compliance.agents.reviewer"]
