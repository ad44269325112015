"""`tiebreak install-desktop`: the launcher and icon a Linux desktop lists, written or
removed. What each did (files, cache updaters run or missing) is a ``DesktopReport``."""

from __future__ import annotations

from desktop.adapters import desktop_entry
from desktop.adapters.desktop_entry import DesktopReport

__all__ = ["DesktopReport", "install_desktop_entry", "uninstall_desktop_entry"]


def install_desktop_entry() -> DesktopReport:
    """Write the desktop entry, the project file's MIME type and the icon for this user,
    and refresh the desktop's caches."""
    return desktop_entry.install()


def uninstall_desktop_entry() -> DesktopReport:
    """Remove what ``install_desktop_entry`` wrote, and refresh the desktop's caches."""
    return desktop_entry.uninstall()
