"""Where the reviewer was: the pair shown when the window closed, kept in the project so
that it opens on that pair again."""

from __future__ import annotations

import contextlib

from desktop.adapters.store.pairs import row_number
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
from desktop.domain.pairs import Pair

_SETTING = "position"


def saved_position(store: ProjectStore) -> int | None:
    value = store.get_setting(_SETTING)
    return row_number(value) if value else None  # the file's text: any digits at all


def save_position(store: ProjectStore, pair: Pair | None) -> None:
    if pair is not None and pair.id is not None:
        with contextlib.suppress(TiebreakError):  # a locked file must not block closing
            store.set_setting(_SETTING, str(pair.id))
