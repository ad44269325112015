"""The user's app settings (reviewer, font size, recent projects): no keys, ever."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from desktop.adapters.config import config_dir, read_toml, write_toml
from desktop.domain.errors import TiebreakError

MAX_RECENT = 10
#: A judge run that would send more requests than this is asked about first, in the window
#: and on the command line (``ask_above``; 0: every run that sends a request).
ASK_ABOVE = 200


@dataclass
class AppSettings:
    reviewer: str = ""
    font_size: int = 0  # 0: the system's size
    profile: str = "local"
    recent: list[str] = field(default_factory=list)
    blind: bool = False
    link_scrolling: bool = False
    differences: bool = False  # D: the words that differ between A and B marked
    hide_generators: bool = False  # M: the models that wrote A and B not shown
    reasoning_unfolded: bool = True  # E: the judge's reasoning under its verdicts
    history_unfolded: bool = False  # H: a conversation's turns around the compared one
    ask_above: int = ASK_ABOVE  # requests a judge run may send without asking first
    # The folder of AlpacaEval's df_gamed.csv: the Generators dock's LC win rate is then the
    # leaderboard's variant (length_controlled_v1); empty: the minimal one, no download.
    lc_files: str = ""

    def run_threshold(self) -> int:
        """``ask_above``, refused in one line where the settings file holds no count."""
        value = self.ask_above
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise TiebreakError(
                f"{settings_path()}: ask_above must be a whole number of requests, 0 or"
                f" more, not {value!r}"
            )
        return value

    def remember(self, project: Path) -> bool:
        """Put the project first among the recent ones; whether that changed anything."""
        text = str(project.resolve())
        before = self.recent
        self.recent = [text, *[p for p in self.recent if p != text][: MAX_RECENT - 1]]
        return self.recent != before


def settings_path() -> Path:
    return config_dir() / "settings.toml"


def load_settings() -> AppSettings:
    data = read_toml(settings_path())
    known = AppSettings.__dataclass_fields__
    return AppSettings(**{k: v for k, v in data.items() if k in known})


def save_settings(settings: AppSettings) -> None:
    write_toml(settings_path(), dict(vars(settings)))
