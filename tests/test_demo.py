"""`make demo`'s reviewer runs only where a model can review; otherwise it says how to turn it on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from onlooker.testing import ScriptedEndpoint

DEMO = Path(__file__).resolve().parents[1] / "examples" / "review_demo.py"
FINDING = {
    "content": "get_user builds its SQL from the name it is given",
    "category": "security", "severity": "high", "evidence": "src/users.py: f-string query",
}  # fmt: skip


def run_demo(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ONLOOKER_DEMO_MODEL")}  # fmt: skip
    return subprocess.run([sys.executable, str(DEMO), str(tmp_path / "demo-home")],
                          capture_output=True, text=True, env={**clean, **env}, timeout=120)  # fmt: skip


def test_with_no_model_that_can_review_the_demo_says_how_to_turn_it_on(tmp_path: Path) -> None:
    done = run_demo(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "not run" in done.stdout and "ONLOOKER_DEMO_MODEL" in done.stdout
    assert "[critical]" not in done.stdout and "findings reported" not in done.stdout


def test_a_named_model_reviews_and_its_findings_are_stored(tmp_path: Path) -> None:
    with ScriptedEndpoint({"observations": [FINDING]}) as endpoint:
        done = run_demo(tmp_path, ONLOOKER_DEMO_MODEL=endpoint.spec())
    assert done.returncode == 0, done.stderr
    assert "status ok" in done.stdout
    assert "[high] get_user builds its SQL from the name it is given" in done.stdout
