"""The Qt binding itself must be sound: PySide6 6.12.0 on CPython 3.11 dropped a reference
to True on every signal delivered to a Python slot, so a session crashed after enough
clicks. A wrong pin in pyproject.toml would bring that back; this catches it."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    plain = Signal()
    flag = Signal(bool)


def test_signals_to_python_slots_keep_refcounts(qapp) -> None:
    emitter = _Emitter()
    seen: list[object] = []
    emitter.plain.connect(lambda: None)
    emitter.flag.connect(seen.append)
    before = (sys.getrefcount(True), sys.getrefcount(False), sys.getrefcount(None))
    for _ in range(500):
        emitter.plain.emit()
    after = (sys.getrefcount(True), sys.getrefcount(False), sys.getrefcount(None))
    assert after == before
    seen.clear()
