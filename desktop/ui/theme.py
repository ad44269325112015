"""Light or dark, as the system says (Qt's ``QStyleHints.colorScheme``, and
``colorSchemeChanged`` when the reviewer switches while the window is open).

Asking the system costs tens of milliseconds (the platform's theme, a message to the
desktop), too much before the first pair is painted: the window starts in the scheme the
system had when it last ran (remembered in Qt's settings, ``start``) and asks once it is on
screen (``follow_system``), which changes something only where the system changed
meanwhile.

Where the platform's own palette already follows the system (macOS, Windows 11, KDE), this
changes nothing. Where the system says dark but the palette stayed light (a GNOME desktop
through the XDG portal, say), the application gets a dark palette (``DARK``) in Qt's Fusion
style, and gets its own back when the system turns light again. The window's own colours
are drawn from the palette (the chosen verdict, a model's name, the judge's note, the
figures' bars) or carry their own text colour on a light background (the search's yellow,
the differences' amber), so both read in either."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

Role = QPalette.ColorRole

# Qt's Fusion style's dark colours, with a link colour that reads on them (WCAG contrast
# 4.5 or more against the window and the base: tests/test_gui_theme.py).
DARK = {
    Role.Window: QColor(45, 45, 48),
    Role.WindowText: QColor(232, 232, 232),
    Role.Base: QColor(30, 30, 32),
    Role.AlternateBase: QColor(52, 52, 56),
    Role.ToolTipBase: QColor(60, 60, 64),
    Role.ToolTipText: QColor(232, 232, 232),
    Role.PlaceholderText: QColor(150, 150, 150),
    Role.Text: QColor(232, 232, 232),
    Role.Button: QColor(58, 58, 62),
    Role.ButtonText: QColor(232, 232, 232),
    Role.BrightText: QColor(255, 110, 110),
    Role.Light: QColor(75, 75, 80),
    Role.Midlight: QColor(62, 62, 66),
    Role.Mid: QColor(40, 40, 42),
    Role.Dark: QColor(25, 25, 27),
    Role.Shadow: QColor(0, 0, 0),
    Role.Highlight: QColor(38, 110, 190),
    Role.HighlightedText: QColor(255, 255, 255),
    Role.Link: QColor(110, 180, 255),
    Role.LinkVisited: QColor(190, 150, 255),
}
DISABLED_TEXT = QColor(128, 128, 128)

_own: QPalette | None = None  # the application's palette before the dark one replaced it
_following = False


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, color in DARK.items():
        palette.setColor(role, color)
    for role in (Role.WindowText, Role.Text, Role.ButtonText, Role.HighlightedText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, DISABLED_TEXT)
    return palette


def is_dark(palette: QPalette) -> bool:
    return palette.color(Role.Window).lightness() < 128


REMEMBERED = "color_scheme"  # in QSettings: "dark" or "light", as the system last was


def start(app: QApplication) -> None:
    """Dark from the start where the system was dark when the window last ran."""
    if QSettings("tiebreak", "tiebreak").value(REMEMBERED) == "dark":
        apply(app, Qt.ColorScheme.Dark)


def follow_system(app: QApplication) -> None:
    """Light or dark as the system is now, and whenever it changes."""
    global _following
    hints = QGuiApplication.styleHints()
    apply(app, hints.colorScheme())
    if not _following:
        _following = True
        hints.colorSchemeChanged.connect(lambda scheme: apply(app, scheme))


def apply(app: QApplication, scheme: Qt.ColorScheme) -> None:
    """The palette for ``scheme``: dark where the system is and the palette is not; the
    application's own again once the system is light."""
    global _own
    if scheme != Qt.ColorScheme.Unknown:
        QSettings("tiebreak", "tiebreak").setValue(
            REMEMBERED, "dark" if scheme == Qt.ColorScheme.Dark else "light"
        )
    if scheme == Qt.ColorScheme.Dark and not is_dark(app.palette()):
        _own = app.palette()
        if app.style().name().lower() != "fusion":  # another style may draw its own colours
            app.setStyle("Fusion")
        app.setPalette(dark_palette())
        _restyle(app)
    elif scheme != Qt.ColorScheme.Dark and _own is not None:
        app.setPalette(_own)
        _own = None
        _restyle(app)


def _restyle(app: QApplication) -> None:
    """A style sheet's ``palette(link)`` is read when the sheet is set: set again, so a
    model's name and the judge's note take the link colour of the palette now."""
    for widget in app.allWidgets():
        sheet = widget.styleSheet()
        if "palette(" in sheet:
            widget.setStyleSheet("")
            widget.setStyleSheet(sheet)
