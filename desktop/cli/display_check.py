"""Before Qt starts: say in one line what is missing, instead of Qt's abort.

On Linux, Qt's xcb plugin aborts the process when a system library is missing; these
libraries come from the system's packages, not from pip, so name the packages to install.
"""

from __future__ import annotations

import os
import sys

# library soname (what Qt's plugin loads) -> Debian/Ubuntu package. Loading by soname is
# what the dynamic linker does for Qt, and takes microseconds; ctypes.util.find_library
# would run `ldconfig -p` once per library.
XCB_LIBRARIES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libEGL.so.1": "libegl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libGL.so.1": "libgl1",
}


def _loads(soname: str) -> bool:
    import ctypes  # only where a window is to open on X11

    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


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
    missing = [pkg for lib, pkg in XCB_LIBRARIES.items() if not _loads(lib)]
    if missing:
        return (
            "the window needs system libraries that pip cannot install; run: sudo apt-get"
            f" install {' '.join(missing)}"
        )
    return None
