"""LLM reviewers: observers that ask a model to review what they watch (files, the conversation),
run in parallel in the hook or as background jobs, with change detection and cost per run.
"""
