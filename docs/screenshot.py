"""Make docs/screenshot.png: the window on the built-in demo project, its first pairs judged
by the offline local model (the real llama.cpp server), two verdicts of a reviewer, the
differences between A and B marked (D), the agreement dock open, and the judge picker (G)
open over it, as a reviewer sees it. Uses a
scratch config folder, so a reviewer's own settings are safe.

    xvfb-run -s "-screen 0 1600x1000x24" .venv/bin/python docs/screenshot.py [--judge N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "screenshot.png"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", type=int, default=6, help="pairs to judge (default 6)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="tiebreak-screenshot-"))
    for name in ("TIEBREAK_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        os.environ[name] = str(scratch / name.lower())

    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QApplication

    from desktop.domain.verdicts import Verdict
    from desktop.services.app_settings import AppSettings
    from desktop.services.demo import ensure_demo_project
    from desktop.services.session import ReviewSession
    from desktop.ui.main_window import MainWindow

    app = QApplication([])
    settings = AppSettings(reviewer="ada")
    window = MainWindow(ReviewSession.open(ensure_demo_project(), settings), settings)
    window.resize(1600, 1000)
    window.show()

    def wait(done, timeout: float) -> None:
        end = time.monotonic() + timeout
        while not done() and time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    model = window.pairs.model
    ids = [model.row_at(i).id for i in range(min(args.judge, model.rowCount()))]
    window.judging.judge(ids)
    wait(lambda: not window.judging.running, 60.0 * len(ids))
    window.editing.set_verdict("clarity", Verdict.A)
    window.editing.set_verdict("depth", Verdict.B)
    window.shortcuts["toggle_diff"].trigger()  # D: the words that differ, marked
    window.agreement.show(True)
    wait(lambda: not window.context.runner.busy(), 30.0)  # figures, counts, judges
    window.choices.focus_judge()  # G: the judge picker, open
    popup = window.choices.judge_box.view().window()
    wait(lambda: False, 0.5)  # let the last repaint land
    shot = window.grab()
    painter = QPainter(shot)  # the list is a window of its own: drawn under its box
    box = window.choices.judge_box
    painter.drawPixmap(box.mapTo(window, QPoint(0, box.height())), popup.grab())
    painter.end()
    if not shot.save(str(args.out), "PNG"):
        raise SystemExit(f"{args.out}: could not be written")
    print(args.out)
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
