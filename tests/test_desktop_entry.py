"""Desktop conventions: `tiebreak FILE.tiebreak` opens the window on that project, and
`tiebreak install-desktop` puts a menu entry, the MIME type of .tiebreak files and an
icon under $XDG_DATA_HOME, which the desktop (here: Qt's own MIME database) then uses."""

from __future__ import annotations

import configparser
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from desktop.adapters.desktop_entry import exec_quote
from desktop.cli.main import _window_request
from desktop.services.importing import import_file
from tests.helpers import new_project, tiebreak, write_jsonl

MIME = "application/x-tiebreak-project"

# Opens the window the way the desktop entry does (`tiebreak FILE`), reports what it
# shows once painted, and quits.
_CHILD = """
import json, sys
from PySide6.QtCore import QCoreApplication, QTimer
from desktop.ui import main_window

_init = main_window.MainWindow.__init__
def watched(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    def report():
        print(json.dumps({"title": self.windowTitle(), "pair": self.session.current.external_id}))
        self.close()
        QCoreApplication.instance().quit()
    QTimer.singleShot(200, report)
main_window.MainWindow.__init__ = watched
from desktop.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_lone_project_path_opens_the_window() -> None:
    assert _window_request(["reviews.tiebreak"]) == Path("reviews.tiebreak")
    assert _window_request(["Reviews.TIEBREAK"]) == Path("Reviews.TIEBREAK")
    assert _window_request(["/home/ada/data/reviews.db"]) == Path("/home/ada/data/reviews.db")
    assert _window_request(["rubrics"]) is False  # a command is never taken for a file
    assert _window_request(["--version"]) is False
    assert _window_request(["-x.tiebreak"]) is False  # an option is never a file
    assert _window_request(["stats", "reviews.tiebreak"]) is False


def _project(tmp_path: Path, name: str = "reviews.tiebreak") -> Path:
    project = new_project(tmp_path, name)
    rows = [{"id": "first", "instruction": "q", "response_a": "a", "response_b": "b"}]
    from desktop.adapters.store import open_project

    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    return project


def _open(*args: str | Path) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_tiebreak_file_opens_that_project(tmp_path: Path) -> None:
    project = _project(tmp_path)
    shown = _open(project)
    assert shown == {"title": "reviews.tiebreak — Tiebreak", "pair": "first"}


def test_install_desktop_for_this_user(tmp_path: Path) -> None:
    home = tmp_path / "data home"  # a space, as in many home folders
    env = {**os.environ, "XDG_DATA_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-m", "desktop", "install-desktop"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    entry_path = home / "applications" / "tiebreak.desktop"
    assert f"wrote {entry_path}" in proc.stdout
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(entry_path, encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert [desktop[k] for k in ("Type", "Name", "Icon")] == ["Application", "Tiebreak", "tiebreak"]
    assert desktop["MimeType"] == f"{MIME};"
    command = shlex.split(desktop["Exec"])
    assert command[-1] == "%f" and Path(command[0]).is_absolute()
    assert (home / "mime" / "packages" / "tiebreak.xml").is_file()
    assert (home / "icons" / "hicolor" / "scalable" / "apps" / "tiebreak.svg").is_file()
    if shutil.which("update-mime-database"):
        assert "ran update-mime-database" in proc.stdout
        assert f"{MIME}:*.tiebreak" in (home / "mime" / "globs2").read_text()

    # The desktop now knows a project by its name and, renamed, by its content.
    project = _project(tmp_path)
    renamed = tmp_path / "copy.db"
    shutil.copy(project, renamed)
    probe = (
        "import sys; from PySide6.QtCore import QCoreApplication, QMimeDatabase;"
        " app = QCoreApplication([]); db = QMimeDatabase();"
        " print(*[db.mimeTypeForFile(f).name() for f in sys.argv[1:]])"
    )
    known = subprocess.run(
        [sys.executable, "-c", probe, str(project), str(renamed)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert known.stdout.split() == [MIME, MIME]

    # What a file manager runs on a double click: the entry's Exec with the file's path.
    # A file that is gone is refused in one line: the word was taken as a project.
    gone = subprocess.run(
        [*command[:-1], str(tmp_path / "gone.tiebreak")],
        capture_output=True,
        text=True,
        env={**env, "QT_QPA_PLATFORM": "offscreen"},
        timeout=60,
    )
    assert gone.returncode == 1 and "gone.tiebreak: no such project" in gone.stderr

    proc = subprocess.run(
        [sys.executable, "-m", "desktop", "install-desktop", "--uninstall"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert not entry_path.exists()
    assert not (home / "mime" / "packages" / "tiebreak.xml").exists()


def test_exec_words_are_quoted_as_the_specification_asks() -> None:
    assert exec_quote("/usr/bin/tiebreak") == "/usr/bin/tiebreak"
    assert exec_quote("/home/a b/.venv/bin/tiebreak") == '"/home/a b/.venv/bin/tiebreak"'
    assert exec_quote('/x/"q"$`\\') == '"/x/\\"q\\"\\$\\`\\\\"'
    assert exec_quote("/x/100%") == '"/x/100%%"'


def test_install_desktop_is_listed_in_help() -> None:
    proc = tiebreak("--help")
    assert "install-desktop" in proc.stdout and "FILE.tiebreak" in proc.stdout
