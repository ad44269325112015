"""The window's three choices, top right in the menu bar: the rubric; the judge whose
verdicts are shown (every judge with answers for the rubric, with how many pairs it
answered); and the profile that Ctrl+J asks, chosen on its own. Each choice is made on the
session, then published as a Change (desktop/services/changes.py), which the list, the
verdict panel, the counts and the docks each follow."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QMenuBar, QWidget

from desktop.domain.errors import TiebreakError
from desktop.domain.shown_text import shown
from desktop.services import background
from desktop.services.app_settings import save_settings
from desktop.services.changes import Change
from desktop.services.project_rubrics import rubric_choices
from desktop.ui.context import WindowContext
from desktop.ui.file_watch import FileWatch
from desktop.ui.picker_box import PickerBox
from desktop.ui.plain_text import PlainLabel
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.workers import Refresher

if TYPE_CHECKING:
    from desktop.services.judges import JudgeChoice
    from desktop.services.model_listing import FoundFile, FoundServerModel

NO_JUDGE = "none yet"


def _found_models(
    progress: background.Progress, cancel: threading.Event
) -> list[FoundFile | FoundServerModel]:
    """The models on this machine that no profile serves yet (GGUF files in the usual
    folders, running servers' models), found off the GUI thread for the "ask" list."""
    from desktop.services.model_listing import find_models, not_yet_profiles
    from desktop.services.profiles import load_profiles

    return not_yet_profiles(find_models().entries(), load_profiles().values())


class Choices(QWidget):
    def __init__(self, context: WindowContext, menu_bar: QMenuBar) -> None:
        super().__init__(context.window)
        self.context = context
        self.menu_bar = menu_bar
        self.rubric_box = QComboBox()
        self.rubric_box.setToolTip("The rubric (judge prompt) whose verdicts you review")
        self.rubric_box.currentTextChanged.connect(self._rubric_chosen)
        self.judge_box = PickerBox()  # its list closed: the keys go back to the pairs
        self.judge_box.setToolTip(
            "Whose verdicts are shown (G): every judge with answers for this rubric, with"
            " the pairs it answered: annotators imported with the data, command-line runs,"
            " profiles; then the juries kept (several judges as one: 'tiebreak jury add',"
            " Judge › Judge with a jury)"
        )
        self.judge_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.judge_box.currentIndexChanged.connect(self._judge_chosen)
        self.profile_box = QComboBox()
        self.profile_box.setToolTip(
            "The model profile that Ctrl+J and Ctrl+Shift+J ask; below it, models found on"
            " this machine (GGUF files, running servers): choosing one makes it a profile"
        )
        self.profile_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.profile_box.currentIndexChanged.connect(self._profile_chosen)
        self.found_models: list[FoundFile | FoundServerModel] = []
        # `tiebreak profile add` in a terminal while the window is open: listed at once.
        self.profiles_watch = FileWatch(context.session.profiles_file(), self)
        self.profiles_watch.changed.connect(self._profiles_changed)
        self._found = Refresher(
            context.runner,
            lambda: _found_models,
            self._offer_found,
            lambda message: None,  # nothing found is nothing to offer
        )
        self._judges = Refresher(
            context.runner,
            self._judges_work,
            self._fill_judges,
            lambda message: context.say(f"judges could not be counted: {message}", 6000),
            key=lambda: (context.session, context.session.rubric_name),
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 6, 0)
        for label, box in (
            ("rubric:", self.rubric_box),
            ("judge:", self.judge_box),
            ("ask:", self.profile_box),
        ):
            layout.addWidget(PlainLabel(label))
            layout.addWidget(box)
        menu_bar.setCornerWidget(self)

    def bind(self, shortcuts: Shortcuts) -> None:
        shortcuts.bind("focus_judge", self.focus_judge)

    def fill(self) -> None:
        """The choices of the session just opened."""
        session = self.context.session
        self.rubric_box.blockSignals(True)
        self.rubric_box.clear()
        self.rubric_box.addItems(rubric_choices(session.store))
        self.rubric_box.setCurrentText(session.rubric_name)
        self.rubric_box.blockSignals(False)
        self._fill_profiles(self.found_models)
        self._fill_judges(session.judge_names())

    def find_models(self) -> None:
        """Look for models on this machine off the GUI thread, and offer them below the
        profiles (after the window's first frame: the search loads what showing a pair
        does not need)."""
        self._found.request()

    def _fill_profiles(self, found: list[FoundFile | FoundServerModel]) -> None:
        """The profiles, the one Ctrl+J asks selected; then the models ``found`` on this
        machine that are no profile yet."""
        session = self.context.session
        box = self.profile_box
        try:
            names = session.profile_choices()
        except TiebreakError as exc:  # the file half-edited by hand: said, the list kept
            self.context.say(f"the profiles were not read again: {exc}", 6000)
            names = [n for i in range(box.count()) if isinstance(n := box.itemData(i), str)]
        box.blockSignals(True)
        box.clear()
        for name in names or [session.profile.name]:
            box.addItem(name, name)
        if found:
            from desktop.services.model_listing import entry_label

            box.insertSeparator(box.count())
            for entry in found:
                box.addItem(f"+ {entry_label(entry)}", entry)
        box.setCurrentIndex(max(0, box.findData(session.profile.name)))
        box.blockSignals(False)

    def _profiles_changed(self) -> None:
        """The profiles file written by another process (a profile added or changed on the
        command line): the list again, the profile Ctrl+J asks as the file now has it, and
        the models found that are no profile yet looked for again."""
        session = self.context.session
        try:
            changed = session.reload_profile()
        except TiebreakError as exc:  # a file half-edited by hand: said, the list kept
            self.context.say(f"the profiles were not read again: {exc}", 6000)
            return
        self._fill_profiles(self.found_models)
        self._found.request()
        if changed:
            self.context.publish(Change(profile=True, judge=session.shown_judge is None))

    def _offer_found(self, found: list[FoundFile | FoundServerModel]) -> None:
        self.found_models = found
        self._fill_profiles(found)

    # ---- the judge whose verdicts are shown ----------------------------------------------
    def _judges_work(self) -> background.Work[list[JudgeChoice]]:
        """The rubric's judges with the pairs each answered, counted off the GUI thread."""
        from desktop.services.judges import judge_choices

        session = self.context.session
        rubric = session.rubric_name
        return background.reading(session.project, lambda store: judge_choices(store, rubric))

    def _fill_judges(self, choices: list[JudgeChoice]) -> None:
        """The picker's entries, the shown judge selected; a judge that has no answer yet
        (a job just started) is listed too."""
        current = self.context.session.shown_judge
        entries = [(c.judge, c.pairs, len(c.jurors)) for c in choices]
        if current is not None and current not in {name for name, _, _ in entries}:
            entries.insert(0, (current, 0, 0))
        box = self.judge_box
        box.blockSignals(True)
        box.clear()
        for name, pairs, jurors in entries:
            label = f"{shown(name)} (jury of {jurors})" if jurors else shown(name)
            box.addItem(label if pairs is None else f"{label} · {pairs:,}", name)
        if current is None:
            box.addItem(NO_JUDGE, None)
        box.setCurrentIndex(
            max(0, box.findData(current)) if current is not None else box.count() - 1
        )
        box.blockSignals(False)
        if self.isVisible():  # wider names or counts: the menu bar makes room
            self.adjustSize()
            self.menu_bar.setCornerWidget(self)  # (set again, it is laid out anew)

    def refresh_judges(self) -> None:
        """Count each judge's pairs off the GUI thread and show them in the picker; a
        request made while a count runs is served when it ends."""
        self._judges.request()

    def focus_judge(self) -> None:
        """G: open the judge picker; arrows and Enter choose, Escape leaves it as it was."""
        self.judge_box.setFocus()
        self.judge_box.showPopup()

    def _judge_chosen(self, index: int) -> None:
        name = self.judge_box.itemData(index)
        if name is None or name == self.context.session.shown_judge:
            return
        self.show_judge(name)

    def show_judge(self, name: str) -> None:
        """Show ``name``'s verdicts: the list, the pair's verdicts, counts and dock follow."""
        session = self.context.session
        if name == session.shown_judge:
            return
        session.choose_judge(name)
        if self.judge_box.findData(name) < 0:  # no answers yet: listed until counted
            self._fill_judges(session.judge_names())
            self.refresh_judges()
        else:
            self.judge_box.blockSignals(True)
            self.judge_box.setCurrentIndex(self.judge_box.findData(name))
            self.judge_box.blockSignals(False)
        self.context.publish(Change(judge=True))

    # ---- rubric and profile ----------------------------------------------------------------
    def _rubric_chosen(self, name: str) -> None:
        session = self.context.session
        if name and name != session.rubric_name:
            try:
                session.choose_rubric(name)
            except TiebreakError as exc:
                self.context.error(str(exc))
                return
            self._fill_judges(session.judge_names())
            self.refresh_judges()
            self.context.publish(Change(rubric=True))

    def _profile_chosen(self, index: int) -> None:
        session = self.context.session
        chosen = self.profile_box.itemData(index)
        if chosen is None or chosen == session.profile.name:
            return
        try:
            if isinstance(chosen, str):
                session.choose_profile(chosen)
            else:  # a model found on this machine: a profile from now on
                from desktop.services.model_listing import add_found

                session.choose_profile(add_found(chosen).name)
                self._fill_profiles([e for e in self.found_models if e is not chosen])
                self.context.say(f"new profile {session.profile.name}: Ctrl+J asks it", 6000)
        except TiebreakError as exc:
            self.context.error(str(exc))
            self._fill_profiles(self.found_models)
            return
        save_settings(self.context.settings)  # the next start asks the same model
        # Nothing answered yet on this rubric: the verdicts shown are whom Ctrl+J asks.
        self.context.publish(Change(profile=True, judge=session.shown_judge is None))
