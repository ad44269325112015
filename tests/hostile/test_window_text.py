"""What a response, a model name or a server's error text can make the window do: nothing.

No file named in any text is ever opened (a FIFO would block the window for good; a local
PNG would be drawn), and no label, tooltip or message box reads data as HTML. Each case
checks what a person would see: the window still answers, the image's colour is nowhere in
its pixels, the markup shows as the characters it is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QFontMetrics, QImage
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from desktop.adapters.profiles_file import save_profile
from desktop.adapters.store import open_project
from desktop.domain.profiles import ModelProfile
from desktop.services.app_settings import AppSettings
from desktop.services.importing import import_file
from desktop.services.session import ReviewSession
from desktop.ui.main_window import MainWindow
from desktop.ui.plain_text import PlainLabel, plain_tooltip
from desktop.ui.response_view import ResponseView
from tests.gui_helpers import judged_message_box
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import REPO, Hostile
from tests.openai_server import OpenAIServer, Reply

pytestmark = pytest.mark.usefixtures("qapp")
RED = 0xFFFF0000  # ARGB32 of the image named in the texts


def hostile_markup(png: Path) -> str:
    """Rich text that would be drawn narrow and bold, with the PNG in it; as plain text it
    is a long run of characters."""
    return "<b>bold</b>" + "<i></i>" * 20 + f"<img src='{png}'>"


def red_png(folder: Path) -> Path:
    path = folder / "red.png"
    image = QImage(400, 300, QImage.Format.Format_ARGB32)
    image.fill(QColor(255, 0, 0))
    assert image.save(str(path), "PNG")
    return path


def red_pixels(widget: QWidget) -> int:
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)
    return memoryview(image.constBits()).cast("I").tolist().count(RED)


def spellings(target: Path) -> list[str]:
    """A local file as a response may name it: a file URL, an absolute and a relative path."""
    return [target.as_uri(), str(target), target.name]


def _project(folder: Path, text: str) -> Path:
    project = new_project(folder)
    row = {"id": "p1", "instruction": text, "output_1": text, "output_2": text,
           "reference": text, "source": text}  # fmt: skip
    with open_project(project) as store:
        import_file(store, write_jsonl(folder / "pairs.jsonl", [row]))
    return project


_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from PySide6.QtWidgets import QApplication
    from desktop.services.app_settings import AppSettings
    from desktop.services.session import ReviewSession
    from desktop.ui.main_window import MainWindow

    app = QApplication([])
    settings = AppSettings(reviewer="ada", profile="hostile")
    window = MainWindow(ReviewSession.open(Path(sys.argv[1]), settings), settings)
    window.resize(1200, 800)
    window.show()
    for _ in range(20):
        app.processEvents()
    window.grab()
    window.display.pair_view.set_raw(True)
    window.display.pair_view.set_raw(False)
    window.grab()
    print("shown", window.display.verdicts.judge_info.text())
    window.close()
    """
)


@pytest.mark.parametrize("where", ["the pair", "the judge's name"])
def test_a_fifo_named_anywhere_never_blocks_the_window(
    tmp_path: Path, hostile: Hostile, where: str
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    named = "\n\n".join(f"![x]({s}) <img src='{s}'>" for s in spellings(fifo))
    project = _project(tmp_path, named if where == "the pair" else "Which is better?")
    model = f"<img src='{fifo}'>" if where != "the pair" else "m"  # shown in the verdict panel
    save_profile(
        ModelProfile(name="hostile", model=model, base_url="http://127.0.0.1:9/v1", needs_key=False)
    )
    try:
        run = subprocess.run(
            [sys.executable, "-c", _CHILD, str(project)],
            cwd=tmp_path,  # where the relative spelling points
            env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=90,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the window blocked on a FIFO named in {where}")
    assert run.returncode == 0, run.stderr
    assert f"shown judge: {model}" in run.stdout
    hostile.held()


def test_a_local_image_named_in_a_response_is_not_drawn(
    qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hostile: Hostile
) -> None:
    monkeypatch.chdir(tmp_path)  # where the relative spelling points
    png = red_png(tmp_path)
    view = ResponseView()
    qtbot.addWidget(view)
    view.resize(900, 1400)
    view.show()
    for name in spellings(png):
        view.set_text(f"Look: ![a red square]({name}) and [![linked]({name})](https://example.org)")
        assert red_pixels(view) == 0, f"{name} was drawn"
        shown = view.toPlainText()
        assert "[image: a red square]" in shown and "[image: linked]" in shown
        assert "\ufffc" not in shown  # no object left in the document for Qt to load
    hostile.held()


def _literal(label: PlainLabel, text: str) -> None:
    """``text`` is drawn as its characters: as wide as they are, no image in its pixels."""
    assert label.text() == text
    assert label.sizeHint().width() >= QFontMetrics(label.font()).horizontalAdvance(text) * 0.9
    assert red_pixels(label) == 0


def test_judge_info_shows_a_model_name_and_a_server_error_literally(
    qtbot, tmp_path: Path, hostile: Hostile
) -> None:
    png = red_png(tmp_path)
    markup = hostile_markup(png)
    project = _project(tmp_path, "Which is better?")
    with OpenAIServer() as server:
        server.script([Reply.error(400, f"bad request {markup}")])
        save_profile(
            ModelProfile(name="hostile", model=markup, base_url=server.base_url, needs_key=False)
        )
        settings = AppSettings(reviewer="ada", profile="hostile")
        window = MainWindow(ReviewSession.open(project, settings), settings)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        info = window.display.verdicts.judge_info
        _literal(info, f"judge: {markup} — not judged yet (Ctrl+J asks hostile: {markup})")
        window.judging.judge_pair()
        qtbot.waitUntil(lambda: not window.judging.running, timeout=30_000)
        assert markup in info.text() and "bad request" in info.text()
        _literal(info, info.text())
        window.context.runner.shutdown()
    hostile.held()


def test_a_server_refusal_is_shown_literally_in_its_message_box(
    qtbot, tmp_path: Path, hostile: Hostile
) -> None:
    markup = hostile_markup(red_png(tmp_path))
    project = _project(tmp_path, "Which is better?")

    def look(box: QMessageBox) -> tuple[str, int, float]:
        label = next(w for w in box.findChildren(QLabel) if w.text() == box.text())
        # Word-wrapped: as much room as the characters take, over all its lines.
        metrics, size = QFontMetrics(label.font()), label.sizeHint()
        room = size.width() * (size.height() // metrics.lineSpacing())
        return box.text(), red_pixels(box), room / metrics.horizontalAdvance(markup)

    with OpenAIServer() as server:
        server.script([Reply.error(401, f"no such key {markup}")] * 3)
        profile = ModelProfile(name="hostile", model="m", base_url=server.base_url,
                               needs_key=False)  # fmt: skip
        text, red, room = judged_message_box(qtbot, project, profile, look)
    assert markup in text
    assert red == 0
    assert room >= 0.9
    hostile.held()


def test_a_tooltip_shows_markup_literally(qtbot, hostile: Hostile) -> None:
    from PySide6.QtGui import QTextDocument

    tip = plain_tooltip("<b>x</b><img src='/etc/passwd'>\nnext")
    document = QTextDocument()
    document.setHtml(tip)  # how Qt reads a tooltip that looks like rich text
    shown = document.toPlainText().replace("\u2028", "\n")
    assert shown == "<b>x</b><img src='/etc/passwd'>\nnext"
    hostile.held()


def test_every_label_in_the_window_is_plain(qtbot, tmp_path: Path, hostile: Hostile) -> None:
    """The outcome tests above cover the labels that show data today; this keeps a label
    added later from guessing at HTML."""
    project = _project(tmp_path, "Which is better?")
    settings = AppSettings(reviewer="ada")
    window = MainWindow(ReviewSession.open(project, settings), settings)
    qtbot.addWidget(window)
    window.agreement.show(True)
    labels = window.findChildren(QLabel)
    assert labels and all(isinstance(label, PlainLabel) for label in labels), [
        label.text() for label in labels if not isinstance(label, PlainLabel)
    ]
    window.context.runner.shutdown()
    hostile.held()
