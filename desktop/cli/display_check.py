"""Before Qt starts: say in one line what is missing, instead of Qt's abort.

On Linux, Qt's xcb plugin aborts the process (exit 134, a libxcb message that names no
fix) when a system library is missing or DISPLAY names no X server that answers. The
libraries come from the system's packages, not from pip, so name the packages to install;
the server is asked the way Qt asks it, through libxcb.
"""

from __future__ import annotations

import os
import shlex
import shutil
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


def _answers(display: str) -> bool | None:
    """Whether the X server ``display`` names accepts a connection (None: libxcb itself is
    missing, which the library check reports)."""
    import ctypes

    try:
        xcb = ctypes.CDLL("libxcb.so.1")
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(display.encode(), None)
    try:
        return bool(xcb.xcb_connection_has_error(connection) == 0)
    finally:
        xcb.xcb_disconnect(connection)


def rerun_command() -> str:
    """The command this process was started with, as the user can type it again: the
    console script by the path it was run from where it is not on PATH
    (``.venv/bin/tiebreak``), ``python -m desktop`` likewise."""
    script = sys.argv[0]
    if os.path.basename(script) == "tiebreak":
        on_path = shutil.which("tiebreak")
        same = on_path is not None and os.path.samefile(on_path, script)
        head = ["tiebreak" if same else _short(script)]
    else:
        head = [_short(sys.executable), "-m", "desktop"]
    return shlex.join([*head, *sys.argv[1:]])


def _short(path: str) -> str:
    """``path`` relative to the working folder where it lies under it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _under_xvfb() -> str:
    return f"under Xvfb: xvfb-run {rerun_command()} (xvfb-run is in Debian's xvfb package)"


def display_problem() -> str | None:
    """One line saying why a window cannot open here, or None if it can."""
    if not sys.platform.startswith("linux"):
        return None
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform.startswith(("offscreen", "minimal", "vnc")):
        return None
    if not platform and not os.environ.get("DISPLAY") and os.environ.get("WAYLAND_DISPLAY"):
        return None  # Qt picks Wayland; its libraries come with the desktop
    if platform.startswith("wayland"):
        return None
    display = os.environ.get("DISPLAY", "")
    if not display:
        return (
            "no display to open a window on (DISPLAY is not set); run it in a desktop"
            f" session, or {_under_xvfb()}"
        )
    if _answers(display) is False:
        return (
            f"no X server answers on DISPLAY={display}; set DISPLAY to a running one, or run"
            f" it {_under_xvfb()}"
        )
    missing = [pkg for lib, pkg in XCB_LIBRARIES.items() if not _loads(lib)]
    if missing:
        return (
            "the window needs system libraries that pip cannot install; run: sudo apt-get"
            f" install {' '.join(missing)}"
        )
    return None
