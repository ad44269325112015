"""Every modal dialog the window opens: file choosers, warnings, a read-only text viewer
and the export preview."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QInputDialog,
    QLayout,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.shown_text import shown
from desktop.ui.notice_bar import NoticeBar
from desktop.ui.plain_text import PlainLabel, message_box
from desktop.ui.response_view import ResponseView


def warn(parent: QWidget | None, message: str) -> None:
    """A problem's one line (a TiebreakError's), one line whatever it holds."""
    warn_lines(parent, shown(message))


def warn_lines(parent: QWidget | None, message: str) -> None:
    """A problem told in lines of our own, the outside text in them already escaped."""
    box = message_box(parent, "Tiebreak", message)
    box.setIcon(QMessageBox.Icon.Warning)
    box.exec()


def inform(parent: QWidget, title: str, html: str) -> None:
    """Our own rich text (the shortcut table), never data."""
    box = message_box(parent, title, html, rich=True)
    box.setIcon(QMessageBox.Icon.Information)
    box.exec()


def ask(parent: QWidget, title: str, question: str) -> bool:
    box = message_box(parent, title, question)
    box.setIcon(QMessageBox.Icon.Question)
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    return box.exec() == QMessageBox.StandardButton.Yes


def ask_text(parent: QWidget, title: str, question: str) -> str | None:
    """A line of text the user types (None: cancelled)."""
    text, ok = QInputDialog.getText(parent, title, question)
    return text if ok else None


def open_file(parent: QWidget, title: str, filters: str) -> Path | None:
    path, _ = QFileDialog.getOpenFileName(parent, title, str(Path.home()), filters)
    return Path(path) if path else None


def save_file(parent: QWidget, title: str, default: Path, filters: str) -> Path | None:
    path, _ = QFileDialog.getSaveFileName(parent, title, str(default), filters)
    return Path(path) if path else None


def lay_out(
    dialog: QDialog,
    parts: list[QWidget | QLayout],
    buttons: QDialogButtonBox.StandardButton,
    accept: Callable[[], None] | None = None,
) -> None:
    """``parts`` one above the other, then a row of ``buttons``: the accepting one (OK,
    Save) runs ``accept`` (default: the dialog is accepted), the rejecting one closes it."""
    box = QDialogButtonBox(buttons)
    box.accepted.connect(accept or dialog.accept)
    box.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    for part in parts:
        if isinstance(part, QLayout):
            layout.addLayout(part)
        else:
            layout.addWidget(part)
    layout.addWidget(box)


def read_only_text(text: str) -> QPlainTextEdit:
    view = QPlainTextEdit()
    view.setReadOnly(True)
    view.setPlainText(text)
    return view


def show_text(parent: QWidget, title: str, text: str) -> None:
    """``text`` (a prompt, a judge's answer: data) as plain characters, in the view that
    shows responses, so a text of any length is shown as promptly."""
    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    view = ResponseView()
    lay_out(dialog, [NoticeBar(view), view], QDialogButtonBox.StandardButton.Close)
    dialog.resize(900, 600)
    view.set_text(text, raw=True)
    dialog.exec()


def confirm_export(parent: QWidget, columns: tuple[str, ...], default: Path) -> Path | None:
    """Show the columns the CSV will have, then ask where to write it."""
    dialog = QDialog(parent)
    dialog.setWindowTitle("Export CSV")
    lay_out(
        dialog,
        [
            PlainLabel(f"One row per pair, {len(columns)} columns:"),
            read_only_text(", ".join(columns)),
        ],
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
    )
    dialog.resize(600, 260)
    if not dialog.exec():
        return None
    return save_file(parent, "Export CSV", default, "CSV (*.csv);;JSON lines (*.jsonl)")
