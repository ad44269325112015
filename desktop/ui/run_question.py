"""The window's question before a big judge run: how many requests, to whom, and what they
will cost where the profile has prices. It does not block the window's loop (``open``,
not ``exec``); No is the default button, so Enter as well as Esc starts nothing."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.services.judging.run_size import RunSize
from desktop.ui.plain_text import message_box


def ask_before_run(
    parent: QWidget, size: RunSize, threshold: int, answered: Callable[[bool], None]
) -> QMessageBox:
    """Open the question; ``answered(True)`` once Yes is chosen, ``answered(False)`` for
    No, Esc or closing it."""
    box = message_box(
        parent,
        "Start judging?",
        f"This run will send {size.describe()}.\n\n"
        f"Runs above {threshold:,} requests are asked about first (Settings).",
    )
    box.setIcon(QMessageBox.Icon.Question)
    box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    box.setEscapeButton(QMessageBox.StandardButton.No)
    yes = box.button(QMessageBox.StandardButton.Yes)
    yes.setText(f"Send {size.requests:,} requests")
    box.finished.connect(lambda _result: answered(box.clickedButton() is yes))
    box.open()
    return box
