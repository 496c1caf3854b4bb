"""Agents your own code runs: the Claude Agent SDK, the OpenAI Agents SDK, and plain OpenAI chat
and Anthropic messages tool loops. Each records tool calls through the Runtime and puts the
feedback where its host reads it.
"""
