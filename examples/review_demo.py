"""One LLM reviewer over a small module (`make demo`), run only where a model can review.

The model is `$ONLOOKER_DEMO_MODEL` (any model string, e.g. a local server's
`openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-coder`), else a hosted model when its key is
set. With neither, the demo says how to turn the reviewer on: a tiny model's findings would be
well-formed and false, and a wrong line is worse than none.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from onlooker import Session
from onlooker.core.events import UserPrompt
from onlooker.reviewers._run import ModelCache, run_parallel
from onlooker.reviewers.config import ReviewerConfig
from onlooker.reviewers.execution import Execution
from onlooker.reviewers.watch import FilesTarget
from onlooker.store import Store

PROJECT = Path(__file__).parent / "review"


HOSTED = (
    ("OPENAI_API_KEY", "openai:gpt-4o-mini"),
    ("ANTHROPIC_API_KEY", "anthropic:claude-haiku-4-5"),
)


def demo_model() -> str:
    """The model that can review here: named, else hosted with its key set; '' for none."""
    named = os.environ.get("ONLOOKER_DEMO_MODEL", "").strip()
    if named:
        return named
    return next((model for key, model in HOSTED if os.environ.get(key)), "")


def main(home: str) -> int:
    model = demo_model()
    if not model:
        print(
            "LLM reviewer: not run, since no model that can review is configured here. Set\n"
            "OPENAI_API_KEY or ANTHROPIC_API_KEY, or name a local server with\n"
            "ONLOOKER_DEMO_MODEL=openai-compatible:http://127.0.0.1:8080/v1#<model>, and run\n"
            "`make demo` again to see a reviewer's findings stored, deduplicated and costed."
        )
        return 0
    reviewer = ReviewerConfig(
        name="Security Reviewer", role="Security vulnerability analysis",
        focus="SQL injection, hard-coded credentials", model=model,
        watch=(FilesTarget(("src/*.py",)),), timeout=120,
    )  # fmt: skip
    session = Session("demo")
    session.append(UserPrompt(text="add a user lookup to src/users.py"))
    print(f"reviewing {PROJECT / 'src'} with {reviewer.model}...")
    started = time.monotonic()
    with Store(home) as store:
        (run,) = run_parallel(
            [reviewer], Execution(mode="parallel", timeout_per_observer=120), store=store,
            project="demo", session=session, root=PROJECT, model_for=ModelCache(),
        )  # fmt: skip
        outcome = run.outcome
        print(f"status {outcome.status} in {time.monotonic() - started:.1f} s"
              + (f": {outcome.error}" if outcome.error else ""))  # fmt: skip
        stored = [c.observation.finding for c in run.created if c.new]
        print(f"{len(outcome.findings)} findings reported, {len(stored)} new after deduplication:")
        for finding in stored:
            print(f"  [{finding.severity}] {finding.content}")
        for cost in store.runs.costs("demo"):
            price = f"${cost.cost_usd:.4f}" if cost.cost_usd else "$0 (local)"
            print(f"tokens: {cost.input_tokens} in, {cost.output_tokens} out; cost: {price}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else ".venv/demo-home"))
