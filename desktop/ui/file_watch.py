"""Says when a file another process writes has changed (``tiebreak profile add`` while the
window is open): Qt's file watcher on the file and on its folder, since a file replaced by
an atomic rename is a new file the watcher no longer follows, and a look each time the
application comes back to the front, where a watcher is not told (some network folders).
A change is the file's identity, size or time moved; it is said once edits pause."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication


class FileWatch(QObject):
    changed = Signal()

    def __init__(self, path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self._watcher = QFileSystemWatcher(self)
        self._pause = QTimer(self, singleShot=True, interval=150)  # a write, then a rename
        self._pause.timeout.connect(self.check)
        self._watcher.fileChanged.connect(lambda _: self._pause.start())
        self._watcher.directoryChanged.connect(lambda _: self._pause.start())
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.applicationStateChanged.connect(self._state_changed)
        self._stamp = self._stamped()
        self._watch()

    def check(self) -> None:
        """Say ``changed`` if the file is not the one last seen."""
        self._watch()
        stamp = self._stamped()
        if stamp != self._stamp:
            self._stamp = stamp
            self.changed.emit()

    def _state_changed(self, state: Qt.ApplicationState) -> None:
        if state == Qt.ApplicationState.ApplicationActive:
            self.check()

    def _stamped(self) -> tuple[int, int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None  # not there (yet)
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def _watch(self) -> None:
        """The file, and the nearest folder of it that exists (the config folder may be
        made by the first profile saved)."""
        folder = self.path.parent
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        wanted = [str(folder)] + ([str(self.path)] if self.path.is_file() else [])
        watched = set(self._watcher.files()) | set(self._watcher.directories())
        stale = [p for p in watched if p not in wanted]
        if stale:
            self._watcher.removePaths(stale)
        missing = [p for p in wanted if p not in watched]
        if missing:
            self._watcher.addPaths(missing)
