"""Small dialogs: a read-only text viewer and the export preview."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)


def show_text(parent: QWidget, title: str, text: str) -> None:
    dialog = QDialog(parent)
    dialog.setWindowTitle(title)
    view = QPlainTextEdit()
    view.setReadOnly(True)
    view.setPlainText(text)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(view)
    layout.addWidget(buttons)
    dialog.resize(900, 600)
    dialog.exec()


def confirm_export(parent: QWidget, columns: tuple[str, ...], default: Path) -> Path | None:
    """Show the columns the CSV will have, then ask where to write it."""
    dialog = QDialog(parent)
    dialog.setWindowTitle("Export CSV")
    label = QLabel(f"One row per pair, {len(columns)} columns:")
    view = QPlainTextEdit()
    view.setReadOnly(True)
    view.setPlainText(", ".join(columns))
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
    )
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(label)
    layout.addWidget(view)
    layout.addWidget(buttons)
    dialog.resize(600, 260)
    if not dialog.exec():
        return None
    path, _ = QFileDialog.getSaveFileName(
        parent, "Export CSV", str(default), "CSV (*.csv);;JSON lines (*.jsonl)"
    )
    return Path(path) if path else None
