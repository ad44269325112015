"""How the pair is shown: raw text, linked scrolling, blind mode, the differences between
A and B, the generators' names, scrolling the responses, the text's size; and the raw
completion, the prompt and the shortcut list one key or button away. Each switch says in
the status bar what it switched."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSlider, QApplication

from desktop.domain.errors import TiebreakError
from desktop.services.app_settings import save_settings
from desktop.services.changes import Change
from desktop.services.judge_shown import prompt_text
from desktop.ui import dialogs, font_size
from desktop.ui.context import WindowContext
from desktop.ui.pair_display import PairDisplay
from desktop.ui.shortcuts import Shortcuts, help_text

#: What tells the window its colours or its font changed (the system turned dark, Ctrl+plus).
_RESTYLED = (QEvent.Type.ApplicationPaletteChange, QEvent.Type.ApplicationFontChange)


class ViewActions(QObject):
    def __init__(self, context: WindowContext, display: PairDisplay) -> None:
        super().__init__(context.window)
        self.context = context
        self.display = display
        display.verdicts.showRaw.connect(self.show_raw_completion)
        display.verdicts.showPrompt.connect(self.show_prompt)
        # A pair's documents took the font and the link colour of when they were filled:
        # filled again, once, after the font or the palette changed.
        self._reshow = QTimer(self, singleShot=True, interval=0)
        self._reshow.timeout.connect(self._show_again)
        context.window.installEventFilter(self)
        context.changed.connect(self._changed)

    def bind(self, shortcuts: Shortcuts) -> None:
        settings = self.context.settings
        shortcuts.bind_toggle("toggle_raw", self.raw)
        shortcuts.bind_toggle("toggle_link", self.link_scrolling, checked=settings.link_scrolling)
        shortcuts.bind_toggle("toggle_blind", self.blind, checked=settings.blind)
        shortcuts.bind_toggle("toggle_diff", self.differences, checked=settings.differences)
        shortcuts.bind_toggle(
            "toggle_generators", self.generators, checked=settings.hide_generators
        )
        self.reasoning_action = shortcuts.bind_toggle(
            "toggle_reasoning", self.reasoning, checked=settings.reasoning_unfolded
        )
        self.display.reasoning.set_unfolded(settings.reasoning_unfolded)
        self.display.reasoning.foldedChanged.connect(lambda folded: self.reasoning(not folded))
        self.display.pair_view.set_diff(settings.differences)
        self._show_generators()
        shortcuts.bind("help", self.show_help)
        shortcuts.bind("scroll_down", lambda: self.scroll(1))
        shortcuts.bind("scroll_up", lambda: self.scroll(-1))
        shortcuts.bind("font_larger", lambda: self.text_size(font_size.stepped(settings, 1)))
        shortcuts.bind("font_smaller", lambda: self.text_size(font_size.stepped(settings, -1)))
        shortcuts.bind("font_reset", lambda: self.text_size(0))
        font_size.apply(settings.font_size)

    def _changed(self, change: Change) -> None:
        if change.project:  # the settings may have been saved with another size
            font_size.apply(self.context.settings.font_size)

    def raw(self, raw: bool) -> None:
        """R: the responses as written, or as markdown."""
        self.display.pair_view.set_raw(raw)
        self.context.say(
            "raw text: the responses as written, in a plain monospace font (R shows markdown)"
            if raw
            else "markdown: the responses laid out (R shows them as raw text)"
        )

    def link_scrolling(self, linked: bool) -> None:
        self.context.settings.link_scrolling = linked
        self.display.pair_view.set_linked(linked)
        save_settings(self.context.settings)
        self.context.say(
            "A and B scroll together (L lets each scroll on its own)"
            if linked
            else "A and B scroll each on its own (L links them)"
        )

    def blind(self, blind: bool) -> None:
        """Blind mode: the judge's verdict stays hidden until the reviewer gives theirs."""
        self.context.settings.blind = blind
        save_settings(self.context.settings)
        self.display.show_verdicts()
        self._show_generators()
        self.context.say(
            "blind mode on: a judge verdict you have not seen stays hidden until you give"
            " yours, and the models' names with it (Ctrl+B shows them)"
            if blind
            else "blind mode off: the judge's verdicts are shown (Ctrl+B hides those you have"
            " not seen)"
        )

    def scroll(self, pages: int) -> None:
        """Space (1) or Shift+Space (-1): a response clicked in scrolls by a page; else A
        and B both (only A where they are linked: B follows it)."""
        view = self.display.pair_view
        focus = QApplication.focusWidget()
        texts = [pane.view for pane in view.panes() if pane.isVisible()]
        if isinstance(focus, QAbstractScrollArea) and focus in texts:
            targets = [focus]
        elif self.context.settings.link_scrolling:
            targets = [view.response_a.view]
        else:
            targets = [view.response_a.view, view.response_b.view]
        step = QAbstractSlider.SliderAction
        for target in targets:
            target.verticalScrollBar().triggerAction(
                step.SliderPageStepAdd if pages > 0 else step.SliderPageStepSub
            )

    def text_size(self, size: int) -> None:
        """Ctrl+plus, Ctrl+minus, Ctrl+0: the text's size, kept for the next start."""
        settings = self.context.settings
        settings.font_size = size
        save_settings(settings)
        font_size.apply(size)
        self.context.say(
            f"text at {size} pt (Ctrl+0: the system's {font_size.system_size()} pt)"
            if size
            else f"text at the system's size, {font_size.system_size()} pt"
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _RESTYLED:
            self._reshow.start()
        return False

    def _show_again(self) -> None:
        """The pair's texts filled again, in the font and colours of now."""
        view = self.display.pair_view
        if view.pair is not None:
            view.show_pair(view.pair)

    def reasoning(self, unfolded: bool) -> None:
        """E (or the header's click): the judge's reasoning unfolded or folded."""
        self.context.settings.reasoning_unfolded = unfolded
        save_settings(self.context.settings)
        self.reasoning_action.setChecked(unfolded)
        self.display.reasoning.set_unfolded(unfolded)

    def differences(self, on: bool) -> None:
        """D: the words that differ between A and B marked; the status bar says how many."""
        self.context.settings.differences = on
        save_settings(self.context.settings)
        self.display.pair_view.set_diff(on)
        self.context.say(self.display.pair_view.diff.summary())

    def generators(self, hide: bool) -> None:
        """M: the models that wrote A and B hidden, so a name cannot sway the reviewer."""
        self.context.settings.hide_generators = hide
        save_settings(self.context.settings)
        self._show_generators()
        if hide:
            self.context.say("model names of A and B hidden (M shows them)")
        elif self.context.settings.blind:
            self.context.say("model names of A and B stay hidden in blind mode (Ctrl+B)")
        else:
            self.context.say("model names of A and B shown above the responses (M hides them)")

    def _show_generators(self) -> None:
        settings = self.context.settings
        why = "blind mode" if settings.blind else "M shows it" if settings.hide_generators else None
        self.display.pair_view.hide_generators(why)

    def show_raw_completion(self) -> None:
        """The judge's answers as it wrote them: in blind mode too, where opening them
        shows its verdicts (no verdict given on this pair from then on is blind)."""
        session = self.context.session
        views = session.verdict_views()
        if views is not None and views.judge:
            session.reveal_judge()
            self.display.show_verdicts()
        texts = [
            f"--- order {d.order} ({d.status}) ---\n{d.raw_completion or d.error or ''}"
            for d in (views.judge if views else [])
        ]
        dialogs.show_text(
            self.context.window, "Raw judge completion", "\n\n".join(texts) or "Not judged yet."
        )

    def show_prompt(self) -> None:
        try:
            session = self.context.session
            text = prompt_text(session.store, session.rubric_name, session.current, session.profile)
        except TiebreakError as exc:
            text = str(exc)
        dialogs.show_text(self.context.window, "Prompt sent to the judge", text)

    def show_help(self) -> None:
        dialogs.inform(self.context.window, "Keyboard shortcuts", help_text())
