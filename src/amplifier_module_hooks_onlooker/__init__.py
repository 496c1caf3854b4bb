"""The `hooks-onlooker` Amplifier module by its conventional package name, so Amplifier finds it
by entry point or by import, and `amplifier-core validate hook` can check this folder.
"""

from onlooker.hosts.amplifier import mount

__amplifier_module_type__ = "hook"

__all__ = ["mount"]
