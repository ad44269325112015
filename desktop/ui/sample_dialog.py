"""Draw a sample of pairs to review from the window: how many, drawn how, from which seed.
Q then walks the sample's pairs in the order drawn, and the figures weight them."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QSpinBox, QWidget

from desktop.ui.dialogs import lay_out
from desktop.ui.plain_text import PlainLabel


class SampleDialog(QDialog):
    def __init__(self, parent: QWidget, judge: str) -> None:
        super().__init__(parent)
        self.setWindowTitle("Draw a sample to review")
        self.size_box = QSpinBox()
        self.size_box.setRange(1, 1_000_000)
        self.size_box.setValue(100)
        self.method = QComboBox()
        self.method.addItem("uniform: every judged pair alike", "uniform")
        self.method.addItem(
            "uncertain first: low confidence, flips, jury splits more often", "uncertain"
        )
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_000_000_000)
        form = QFormLayout()
        form.addRow("Pairs", self.size_box)
        form.addRow("Drawn", self.method)
        form.addRow("Seed", self.seed)
        lay_out(
            self,
            [
                PlainLabel(f"From the pairs {judge} judged; Q then walks them in the order drawn."),
                form,
            ],
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
        )

    def values(self) -> tuple[int, str, int]:
        """(size, method, seed)."""
        return self.size_box.value(), str(self.method.currentData()), self.seed.value()
