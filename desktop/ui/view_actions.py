"""The window's view actions: raw text, linked scrolling, blind mode, search focus, and
the raw completion, prompt and shortcut list one key away."""

from __future__ import annotations

from desktop.domain.errors import TiebreakError
from desktop.services.app_settings import save_settings
from desktop.ui.shortcuts import help_text


class ViewActions:
    """Mixed into MainWindow; uses its session (``ctl``), actions and pair view."""

    def toggle_raw(self) -> None:
        self.pair_view.set_raw(self.actions_by_name["toggle_raw"].isChecked())

    def toggle_link(self) -> None:
        self.settings.link_scrolling = self.actions_by_name["toggle_link"].isChecked()
        self.pair_view.set_linked(self.settings.link_scrolling)
        save_settings(self.settings)

    def toggle_blind(self) -> None:
        self.settings.blind = self.actions_by_name["toggle_blind"].isChecked()
        save_settings(self.settings)
        self.refresh_verdicts()

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def show_raw_completion(self) -> None:
        views = self.ctl.verdict_views()
        texts = [
            f"--- order {d.order} ({d.status}) ---\n{d.raw_completion or d.error or ''}"
            for d in (views.judge if views else [])
        ]
        from desktop.ui.dialogs import show_text

        show_text(self, "Raw judge completion", "\n\n".join(texts) or "Not judged yet.")

    def show_prompt(self) -> None:
        try:
            text = self.ctl.prompt_text()
        except TiebreakError as exc:
            text = str(exc)
        from desktop.ui.dialogs import show_text

        show_text(self, "Prompt sent to the judge", text)

    def help(self) -> None:
        from desktop.ui.dialogs import inform

        inform(self, "Keyboard shortcuts", help_text())
