"""The reviewers the hook service of a worker test gets, through $ONLOOKER_REVIEW_SETUP."""

from __future__ import annotations

import os

from onlooker.reviewers.config import ReviewerConfig, ReviewSetup
from onlooker.reviewers.execution import Execution
from onlooker.reviewers.watch import FilesTarget


def setup(root: str) -> ReviewSetup | None:
    reviewer = ReviewerConfig(
        name="Code Reviewer",
        role="Reviews code for quality and correctness",
        focus="Syntax errors, code smells, best practice violations",
        model=os.environ["ONLOOKER_TEST_MODEL"],
        watch=(FilesTarget(("src/**/*.py",)),),
        timeout=10,
    )
    return ReviewSetup((reviewer,), Execution(mode="background", timeout_per_observer=10))
