"""The Claude Code hook path: a tiny client run by every hook and the service that answers it.

`client` imports nothing beyond built-in modules; `service` keeps sessions warm and does the work.
"""
