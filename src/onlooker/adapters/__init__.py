"""Adapters: where a host's own formats (transcripts, hook input, SDK callbacks) become events.

`transcripts` imports recorded sessions; `claude_code` parses hook input and answers it;
`claude_agent_sdk`, `openai_agents`, `openai_chat` and `anthropic_messages` feed agent loops.
"""
