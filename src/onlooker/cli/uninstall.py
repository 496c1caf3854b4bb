"""`onlooker uninstall`: the counterpart of `onlooker install` (defined beside it)."""

from __future__ import annotations

from .install import uninstall_command as command

__all__ = ["command"]
