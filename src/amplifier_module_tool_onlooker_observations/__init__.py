"""The `tool-onlooker-observations` Amplifier module by its conventional package name, so Amplifier
finds it by entry point or by import, and `amplifier-core validate tool` can check this folder.
"""

from onlooker.hosts.amplifier import mount_tool as mount

__amplifier_module_type__ = "tool"

__all__ = ["mount"]
