"""Recorded sessions as a host: Claude Code transcripts and OpenAI message lists read into events,
and replay, which runs observers over them as if live.
"""
