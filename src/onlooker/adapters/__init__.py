"""Adapters: where a host's own formats (transcripts, hook input, SDK callbacks) become events.

`transcripts` imports recorded sessions: Claude Code transcript JSONL and OpenAI chat messages.
"""
