"""Before Qt starts: say in one line what is missing, instead of Qt's abort.

On Linux, Qt's xcb plugin aborts the process when a system library is missing; these
libraries come from the system's packages, not from pip, so name the packages to install.
"""

from __future__ import annotations

import ctypes.util
import os
import sys

# library name (as ctypes.util.find_library takes it) -> Debian/Ubuntu package
XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0",
    "xkbcommon-x11": "libxkbcommon-x11-0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-keysyms": "libxcb-keysyms1",
    "xcb-shape": "libxcb-shape0",
    "xcb-randr": "libxcb-randr0",
    "xcb-render-util": "libxcb-render-util0",
    "xcb-image": "libxcb-image0",
    "xcb-xinerama": "libxcb-xinerama0",
    "EGL": "libegl1",
    "fontconfig": "libfontconfig1",
    "GL": "libgl1",
}


def display_problem() -> str | None:
    """One line saying why a window cannot open here, or None if it can."""
    if not sys.platform.startswith("linux"):
        return None
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform.startswith(("offscreen", "minimal", "vnc")):
        return None
    if not platform and not os.environ.get("DISPLAY") and os.environ.get("WAYLAND_DISPLAY"):
        return None  # Qt picks Wayland; its libraries come with the desktop
    if not os.environ.get("DISPLAY") and not platform.startswith("wayland"):
        return (
            "no display to open a window on (DISPLAY is not set); run it in a desktop"
            " session, or under Xvfb: xvfb-run tiebreak"
        )
    missing = [pkg for lib, pkg in XCB_LIBRARIES.items() if ctypes.util.find_library(lib) is None]
    if missing:
        return (
            "the window needs system libraries that pip cannot install; run: sudo apt-get"
            f" install {' '.join(missing)}"
        )
    return None
