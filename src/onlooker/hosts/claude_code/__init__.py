"""Claude Code as a host: its hook input and answers, the hook handler on the Runtime, install
into settings or a plugin folder, the MCP registration, and its transcripts.
"""
