"""Judge with a jury from the window: the profiles to ask (each one's answers stored as its
model's), how many samples of each (at a temperature), and the name and rule the judges
asked are kept under as one jury, which the judge picker then offers."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSpinBox,
    QWidget,
)

from desktop.domain.shown_text import shown
from desktop.ui.dialogs import lay_out
from desktop.ui.plain_text import PlainLabel

#: The temperature offered for samples (services/judging/panel.SAMPLE_TEMPERATURE, which the
#: window does not load before a job).
SAMPLE_TEMPERATURE = 0.7


class JuryChoice:
    """What the dialog asks for: profile names, samples, temperature, jury name, rule."""

    def __init__(
        self,
        profiles: list[str],
        samples: int,
        temperature: float | None,
        jury: str | None,
        combine: str,
    ) -> None:
        self.profiles, self.samples, self.temperature = profiles, samples, temperature
        self.jury, self.combine = jury, combine


class JuryDialog(QDialog):
    def __init__(self, parent: QWidget, profiles: list[str], current: str) -> None:
        super().__init__(parent)
        self.setWindowTitle("Judge with a jury")
        self.profiles = QListWidget()
        for name in profiles:
            item = QListWidgetItem(shown(name))
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked if name == current else Qt.CheckState.Unchecked
            )
            self.profiles.addItem(item)
        self.samples = QSpinBox()
        self.samples.setRange(1, 50)
        self.samples.setToolTip(
            "Ask each profile this many times: each answer is kept (MODEL#1, MODEL#2, ...),"
            " and their majority is the jury 'MODEL xN', whose confidence is the share that"
            " agree (useful where a server gives no logprobs)"
        )
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setValue(SAMPLE_TEMPERATURE)
        self.temperature.setEnabled(False)
        self.samples.valueChanged.connect(lambda n: self.temperature.setEnabled(n > 1))
        self.name = QLineEdit()
        self.name.setPlaceholderText("jury of the profiles checked")
        self.combine = QComboBox()
        self.combine.addItem("majority (a tie when split evenly)", "majority")
        self.combine.addItem("mean of their B scores", "mean")
        form = QFormLayout()
        form.addRow("Samples of each", self.samples)
        form.addRow("Temperature", self.temperature)
        form.addRow("Keep as the jury", self.name)
        form.addRow("Combined by", self.combine)
        lay_out(
            self,
            [
                PlainLabel("Profiles to ask (each one's answers are kept as its model's):"),
                self.profiles,
                form,
            ],
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel,
        )

    def check(self, name: str, checked: bool = True) -> None:
        for i in range(self.profiles.count()):
            item = self.profiles.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == name:
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def choice(self) -> JuryChoice:
        items = [self.profiles.item(i) for i in range(self.profiles.count())]
        names = [
            str(item.data(Qt.ItemDataRole.UserRole))
            for item in items
            if item.checkState() == Qt.CheckState.Checked
        ]
        samples = self.samples.value()
        jury = self.name.text().strip() or None
        if jury is None and len(names) > 1:
            jury = f"jury of {', '.join(names)}"
        return JuryChoice(
            names,
            samples,
            self.temperature.value() if samples > 1 else None,
            jury,
            str(self.combine.currentData()),
        )
