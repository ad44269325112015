"""The size of the window's text (Ctrl+plus, Ctrl+minus, Ctrl+0), kept in the settings as
``font_size`` (0: the system's). The whole application's font changes, so every label,
list and field follows; the responses' raw text, in the system's fixed-width font, is
scaled by the same factor (``fixed_font``)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QGuiApplication

from desktop.services.app_settings import AppSettings

SMALLEST, LARGEST = 6, 32  # points; the settings dialog allows up to LARGEST too

_system: QFont | None = None  # the application's font before any size was chosen


def system_font() -> QFont:
    """The font the system gave the application (taken the first time it is asked)."""
    global _system
    if _system is None:
        _system = QGuiApplication.font()
    return QFont(_system)


def system_size() -> int:
    return round(system_font().pointSizeF())


def apply(size: int) -> None:
    """Text at ``size`` points (0: the system's size), in the whole application."""
    font = system_font()
    if size:
        font.setPointSizeF(float(max(SMALLEST, min(LARGEST, size))))
    if QGuiApplication.font() != font:
        QGuiApplication.setFont(font)


def stepped(settings: AppSettings, step: int) -> int:
    """The size one step larger or smaller than the settings' (0: the system's)."""
    return max(SMALLEST, min(LARGEST, (settings.font_size or system_size()) + step))


def fixed_font() -> QFont:
    """The system's fixed-width font, scaled as the application's font is."""
    from PySide6.QtGui import QFontDatabase  # loaded when plain text is first shown

    fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    base, now = system_font().pointSizeF(), QGuiApplication.font().pointSizeF()
    if min(base, now, fixed.pointSizeF()) > 0 and abs(now - base) > 0.01:
        fixed.setPointSizeF(fixed.pointSizeF() * now / base)
    return fixed
