"""Start-up: what `tiebreak open PROJECT` has loaded by the time the first pair is painted.

None of these modules is needed to show a pair, and each would add a delay a reviewer
could feel at every start: openai and its compiled parts load in the background once the
window shows; sqlite-utils loads pandas and numpy where they are installed; the settings
dialog loads the keyring. tests/bench/bench_gui.py measures the start itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from desktop.adapters.store import open_project
from desktop.services.app_settings import AppSettings, save_settings
from desktop.services.importing import import_file
from tests.helpers import new_project, write_jsonl

NOT_BEFORE_FIRST_PAINT = (
    "sqlite_utils",  # only to migrate an older file
    "jinja2",  # only to render a prompt
    "openai",  # loaded in the background once the window shows
    "desktop.services.judging",
    "desktop.services.stats",
    "desktop.domain.rubric",  # a rubric loads to judge or show its prompt, not to open
    "desktop.adapters.rubric_files",
    "desktop.services.rubric_catalog",
    "desktop.ui.settings_dialog",  # the keyring, when the dialog opens
    "hashlib",  # loads OpenSSL; only to hash
    "tomli_w",
    "numpy",  # only to compute figures (ratings, prediction-powered win rates)
)

_CHILD = """
import json, sys
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from desktop.ui import main_window

class Painted(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            obj.removeEventFilter(self)
            window = obj.window()
            report = {
                "loaded": [m for m in sys.argv[2:] if m in sys.modules],
                "title": window.windowTitle(),
                "pair": window.session.current.external_id,
            }
            def after():
                print(json.dumps(report), flush=True)
                window.close()
                QCoreApplication.instance().quit()
            QTimer.singleShot(50, after)
        return False

painted = Painted()
_init = main_window.MainWindow.__init__
def watched(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    self.display.pair_view.response_a.view.viewport().installEventFilter(painted)
main_window.MainWindow.__init__ = watched
from desktop.cli.main import main
sys.exit(main(["open", sys.argv[1]]))
"""


def test_the_first_pair_paints_without_loading_what_it_does_not_need(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    rows = [{"id": "p1", "instruction": "q", "response_a": "**a**", "response_b": "b"}]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    settings = AppSettings()
    settings.remember(project)  # reopened, as on most starts: the recent list stands
    save_settings(settings)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(project), *NOT_BEFORE_FIRST_PAINT],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.splitlines()[-1])
    assert report["pair"] == "p1" and report["title"].startswith(project.name)
    assert report["loaded"] == []
