"""Hosts: where an agent's own formats become events and feedback goes back in the host's format.

`claude_code` (hooks, plugin, MCP registration, transcripts), `sdk` (the Claude Agent SDK, the
OpenAI Agents SDK, plain OpenAI and Anthropic tool loops), `recorded` (replay of recorded sessions).
Each translates; the Runtime does the rest.
"""
