"""The rubric's guidance (C) in a dock beside the pair: its description and what each
dimension asks, as the judge's prompt says it, so the reviewer judges by the judge's
criteria. Plain text (a user's rubric is someone else's text); built when first shown,
and following the rubric chosen."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QPlainTextEdit

from desktop.domain.shown_text import shown
from desktop.services.changes import Change
from desktop.ui.context import WindowContext
from desktop.ui.shortcuts import Shortcuts


class GuidanceDock(QObject):
    def __init__(self, context: WindowContext) -> None:
        super().__init__(context.window)
        self.context = context
        self.dock: QDockWidget | None = None
        self.text: QPlainTextEdit | None = None
        context.changed.connect(self._changed)

    def bind(self, shortcuts: Shortcuts) -> None:
        self.action: QAction = shortcuts.bind_toggle("toggle_guidance", self.show)

    def is_open(self) -> bool:
        return self.dock is not None and self.dock.isVisible()

    def show(self, shown_: bool) -> None:
        self._dock().setVisible(shown_)
        if shown_:
            self.refresh()
        self.context.say(
            "the rubric's guidance beside the pair (C hides it)"
            if shown_
            else "the rubric's guidance hidden (C shows it)"
        )

    def _changed(self, change: Change) -> None:
        if (change.rubric or change.project) and self.is_open():
            self.refresh()

    def refresh(self) -> None:
        if self.text is None:
            return
        from desktop.services.rubric_guidance import rubric_guidance  # not at start-up

        session = self.context.session
        guidance = rubric_guidance(session.store, session.rubric_name)
        self.text.setPlainText(shown(guidance.text(), lines=True))
        if self.dock is not None:
            self.dock.setWindowTitle(f"Rubric: {shown(guidance.name)}")

    def _dock(self) -> QDockWidget:
        if self.dock is not None:
            return self.dock
        window = self.context.window
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # the keys stay on the pairs
        self.dock = QDockWidget("Rubric", window)
        self.dock.setObjectName("guidance")
        self.dock.setWidget(self.text)
        self.dock.hide()
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.visibilityChanged.connect(self.action.setChecked)
        return self.dock
