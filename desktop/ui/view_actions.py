"""How the pair is shown: raw text, linked scrolling, blind mode; and the raw completion,
the prompt and the shortcut list one key or button away."""

from __future__ import annotations

from PySide6.QtCore import QObject

from desktop.domain.errors import TiebreakError
from desktop.services.app_settings import save_settings
from desktop.ui import dialogs
from desktop.ui.context import WindowContext
from desktop.ui.pair_display import PairDisplay
from desktop.ui.shortcuts import Shortcuts, help_text


class ViewActions(QObject):
    def __init__(self, context: WindowContext, display: PairDisplay) -> None:
        super().__init__(context.window)
        self.context = context
        self.display = display
        display.verdicts.showRaw.connect(self.show_raw_completion)
        display.verdicts.showPrompt.connect(self.show_prompt)

    def bind(self, shortcuts: Shortcuts) -> None:
        settings = self.context.settings
        shortcuts.bind_toggle("toggle_raw", self.display.pair_view.set_raw)
        shortcuts.bind_toggle("toggle_link", self.link_scrolling, checked=settings.link_scrolling)
        shortcuts.bind_toggle("toggle_blind", self.blind, checked=settings.blind)
        shortcuts.bind("help", self.show_help)

    def link_scrolling(self, linked: bool) -> None:
        self.context.settings.link_scrolling = linked
        self.display.pair_view.set_linked(linked)
        save_settings(self.context.settings)

    def blind(self, blind: bool) -> None:
        """Blind mode: the judge's verdict stays hidden until the reviewer gives theirs."""
        self.context.settings.blind = blind
        save_settings(self.context.settings)
        self.display.show_verdicts()

    def show_raw_completion(self) -> None:
        views = self.context.session.verdict_views()
        texts = [
            f"--- order {d.order} ({d.status}) ---\n{d.raw_completion or d.error or ''}"
            for d in (views.judge if views else [])
        ]
        dialogs.show_text(
            self.context.window, "Raw judge completion", "\n\n".join(texts) or "Not judged yet."
        )

    def show_prompt(self) -> None:
        try:
            text = self.context.session.prompt_text()
        except TiebreakError as exc:
            text = str(exc)
        dialogs.show_text(self.context.window, "Prompt sent to the judge", text)

    def show_help(self) -> None:
        dialogs.inform(self.context.window, "Keyboard shortcuts", help_text())
