"""A window's choices kept in its project (the rubric, the judge shown on each rubric), so
that the project opens as it was left. A choice is written at once where the file was
already checked for damage, else once that check (off the GUI thread) is done, or at
close: a choice must not make a switch wait for a check of the whole file."""

from __future__ import annotations

import contextlib

from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError


class KeptChoices:
    def __init__(self, store: ProjectStore) -> None:
        self.store = store
        self._unsaved: dict[str, str] = {}  # made, not yet written

    def get(self, key: str) -> str | None:
        """The choice as last made, written yet or not."""
        return self._unsaved.get(key) or self.store.get_setting(key)

    def keep(self, key: str, value: str) -> None:
        self._unsaved[key] = value
        self.checked()

    def checked(self) -> None:
        """Write what waited for the check, once the file is known sound."""
        if self.store.known_sound():
            self.write()

    def write(self) -> None:
        """Write the choices not yet written (best effort: a read-only or locked project
        still shows them)."""
        while self._unsaved:
            key, value = self._unsaved.popitem()
            with contextlib.suppress(TiebreakError):
                self.store.set_setting(key, value)
