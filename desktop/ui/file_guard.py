"""Notices, even while the reviewer is idle, that the project file was moved, deleted or
replaced while the window holds it: the session then lets go of the file (nothing of it is
left beside a file it does not belong to), and the window says so once, in one line.
From then on every write and read is refused with that line, and a verdict the reviewer
gives is kept on screen, marked as not saved (VerdictActions)."""

from __future__ import annotations

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from desktop.ui.context import WindowContext

CHECK_MS = 1000  # besides every change the file system reports


class FileGuard(QObject):
    lost = Signal(str)  # the one line, once

    def __init__(self, context: WindowContext) -> None:
        super().__init__(context.window)
        self.context = context
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(lambda _path: self.check())
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_MS)
        self.timer.timeout.connect(self.check)
        context.check_file = self.check

    def watch(self) -> None:
        """Watch the project the window shows now."""
        self.context.lost = None
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        self.watcher.addPath(str(self.context.session.path))
        self.timer.start()

    def check(self) -> None:
        """A stat and a pragma: cheap enough for every change and every second."""
        context = self.context
        if context.closed or context.lost is not None:
            return
        line = context.session.file_lost()
        if line is None:
            return
        self.timer.stop()
        if self.watcher.files():
            self.watcher.removePaths(self.watcher.files())
        context.lost = line
        self.lost.emit(line)
