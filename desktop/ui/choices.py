"""The window's three choices, top right: the rubric; the judge whose verdicts are shown
(every judge with answers for the rubric, with how many pairs it answered); and the
profile that Ctrl+J asks, chosen on its own. Changing what is shown updates the list, the
verdict panel, the counts and the agreement dock together."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QWidget

from desktop.domain.errors import TiebreakError
from desktop.services.app_settings import save_settings
from desktop.ui.plain_text import PlainLabel
from desktop.ui.qt_by_name import set_properties

NO_JUDGE = "none yet"


class JudgePicker(QComboBox):
    """A combo box that hands the keys back to the pair list once its list closes (chosen,
    or left with Escape, which closes the list without telling the box), so J, K and the
    verdict keys act on pairs again."""

    closed = Signal()

    def showPopup(self) -> None:
        super().showPopup()
        popup = self.view().window()
        if not popup.property("tiebreak_watched"):
            popup.setProperty("tiebreak_watched", True)
            popup.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Hide:
            self.closed.emit()
        return False


class Choices:
    """Mixed into MainWindow; uses its session (``ctl``), runner, list and docks."""

    def _build_choices(self) -> None:
        self.rubric_box = QComboBox()
        self.rubric_box.setToolTip("The rubric (judge prompt) whose verdicts you review")
        self.rubric_box.currentTextChanged.connect(self._rubric_chosen)
        self.judge_box = JudgePicker()
        self.judge_box.setToolTip(
            "Whose verdicts are shown (G): every judge with answers for this rubric, with"
            " the pairs it answered: annotators imported with the data, command-line runs,"
            " profiles"
        )
        set_properties(self.judge_box, sizeAdjustPolicy="AdjustToContents")
        self.judge_box.currentIndexChanged.connect(self._judge_chosen)
        self.judge_box.closed.connect(self._picker_closed)
        self.profile_box = QComboBox()
        self.profile_box.setToolTip("The model profile that Ctrl+J and Ctrl+Shift+J ask")
        self.profile_box.currentTextChanged.connect(self._profile_chosen)
        self._judges_task: Any = None
        self._judges_again = False
        corner = self.corner = QWidget(self)  # kept: setCornerWidget does not take ownership
        layout = QHBoxLayout(corner)
        layout.setContentsMargins(0, 0, 6, 0)
        for label, box in (
            ("rubric:", self.rubric_box),
            ("judge:", self.judge_box),
            ("ask:", self.profile_box),
        ):
            layout.addWidget(PlainLabel(label))
            layout.addWidget(box)
        self.menuBar().setCornerWidget(corner)

    def _fill_choices(self) -> None:
        ctl = self.ctl
        self.rubric_box.blockSignals(True)
        self.rubric_box.clear()
        self.rubric_box.addItems(ctl.rubric_choices())
        self.rubric_box.setCurrentText(ctl.rubric_name)
        self.rubric_box.blockSignals(False)
        self.profile_box.blockSignals(True)
        self.profile_box.clear()
        self.profile_box.addItems(ctl.profile_choices())
        self.profile_box.setCurrentText(ctl.profile.name)
        self.profile_box.blockSignals(False)
        self._fill_judges(ctl.judge_names())

    # ---- the judge whose verdicts are shown ----------------------------------------------
    def _fill_judges(self, choices: list[Any]) -> None:
        """The picker's entries, the shown judge selected; a judge that has no answer yet
        (a job just started) is listed too."""
        shown = self.ctl.shown_judge
        entries = [(c.judge, c.pairs) for c in choices]
        if shown is not None and shown not in {name for name, _ in entries}:
            entries.insert(0, (shown, 0))
        box = self.judge_box
        box.blockSignals(True)
        box.clear()
        for name, pairs in entries:
            box.addItem(name if pairs is None else f"{name} · {pairs:,}", name)
        if shown is None:
            box.addItem(NO_JUDGE, None)
        box.setCurrentIndex(max(0, box.findData(shown)) if shown is not None else box.count() - 1)
        box.blockSignals(False)
        if self.isVisible():  # wider names or counts: the menu bar makes room
            self.corner.adjustSize()
            self.menuBar().setCornerWidget(self.corner)  # (set again, it is laid out anew)

    def refresh_judges(self) -> None:
        """Count each judge's pairs off the GUI thread and show them in the picker; a
        request made while a count runs is served when it ends."""
        if self._closed:
            return
        if self._judges_task is not None:
            self._judges_again = True
            return
        self._judges_again = False
        asked = (self.ctl, self.ctl.rubric_name)

        def done(choices: list[Any]) -> None:
            self._judges_task = None
            if self._closed:
                return
            if self._judges_again or asked != (self.ctl, self.ctl.rubric_name):
                self.refresh_judges()
            else:
                self._fill_judges(choices)

        def failed(message: str) -> None:
            self._judges_task = None
            if not self._closed:
                self.statusBar().showMessage(f"judges could not be counted: {message}", 6000)

        self._judges_task = self.runner.start(self.ctl.judges_work(), on_done=done, on_error=failed)

    def focus_judge(self) -> None:
        """G: open the judge picker; arrows and Enter choose, Escape leaves it as it was."""
        self.judge_box.setFocus()
        self.judge_box.showPopup()

    def _picker_closed(self) -> None:
        """Once Qt has put the focus back where the list opened from, move it on."""

        def back() -> None:
            self.activateWindow()  # the list was a window of its own while open
            self.table.setFocus()

        self.later(0, back)

    def _judge_chosen(self, index: int) -> None:
        name = self.judge_box.itemData(index)
        if name is None or name == self.ctl.shown_judge:
            return
        self.show_judge(name)

    def show_judge(self, name: str) -> None:
        """Show ``name``'s verdicts: the list, the pair's verdicts, counts and dock follow."""
        if name == self.ctl.shown_judge:
            return
        self.ctl.choose_judge(name)
        if self.judge_box.findData(name) < 0:  # no answers yet: listed until counted
            self._fill_judges(self.ctl.judge_names())
            self.refresh_judges()
        else:
            self.judge_box.blockSignals(True)
            self.judge_box.setCurrentIndex(self.judge_box.findData(name))
            self.judge_box.blockSignals(False)
        self._shown_verdicts_changed()

    def _shown_verdicts_changed(self) -> None:
        self.verdicts_changed()
        self.reload_list()
        self.refresh_verdicts()  # the same pair stays: its verdicts change all the same
        if self.stats_dock is not None and self.stats_dock.isVisible():
            self.refresh_stats()  # at once, not after the pause an edit waits for

    # ---- rubric and profile ----------------------------------------------------------------
    def _rubric_chosen(self, name: str) -> None:
        if name and name != self.ctl.rubric_name:
            try:
                self.ctl.choose_rubric(name)
            except TiebreakError as exc:
                self.error(str(exc))
                return
            self.verdicts.set_dimensions(self.ctl.dimensions)
            self._fill_judges(self.ctl.judge_names())
            self.refresh_judges()
            self._shown_verdicts_changed()

    def _profile_chosen(self, name: str) -> None:
        if name and name != self.ctl.profile.name:
            try:
                self.ctl.choose_profile(name)
            except TiebreakError as exc:
                self.error(str(exc))
                return
            save_settings(self.settings)  # the next start asks the same model
            if self.ctl.shown_judge is None:  # nothing answered yet: show whom Ctrl+J asks
                self._shown_verdicts_changed()
            else:
                self.refresh_verdicts()
