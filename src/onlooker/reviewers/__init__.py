"""LLM reviewers: observers that ask a model to review what they watch (files, the conversation),
run in parallel in the hook or as background jobs, with change detection and cost per run.
"""

from .config import ReviewerConfig, ReviewSetup
from .execution import Execution
from .watch import ConversationTarget, FilesTarget

__all__ = ["ConversationTarget", "Execution", "FilesTarget", "ReviewSetup", "ReviewerConfig"]
