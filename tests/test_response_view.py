"""Responses are shown literally: HTML as text, nothing loaded, links only on a click."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QTextCursor

from desktop.ui.response_view import ResponseView
from desktop.ui.shown_text import BREAK, RUN, STEP, plain

pytestmark = pytest.mark.usefixtures("qapp")
REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "resources" / "demo_pairs.jsonl"


@pytest.fixture
def view(qtbot) -> ResponseView:
    widget = ResponseView()
    qtbot.addWidget(widget)
    widget.resize(600, 400)
    widget.show()
    return widget


def test_html_is_shown_as_text_not_dropped(view: ResponseView) -> None:
    text = "Before <script>alert(1)</script> after **bold** <b>not bold</b> end"
    view.set_text(text)
    shown = view.toPlainText()
    assert "<script>alert(1)</script>" in shown
    assert "after" in shown and "end" in shown
    assert "<b>not bold</b>" in shown
    assert "**" not in shown  # markdown itself is rendered


def test_only_http_links_open_and_only_on_click(view: ResponseView, monkeypatch) -> None:
    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    refused: list[str] = []
    view.linkRefused.connect(refused.append)
    view.set_text("[site](https://example.org) [file](file:///etc/passwd) [js](javascript:x)")
    assert opened == []  # showing a link never follows it
    view.anchorClicked.emit(QUrl("file:///etc/passwd"))
    view.anchorClicked.emit(QUrl("javascript:x"))
    view.anchorClicked.emit(QUrl("https://example.org"))
    assert opened == ["https://example.org"]
    assert refused == ["file:///etc/passwd", "javascript:x"]


def test_raw_toggle_shows_the_exact_text(view: ResponseView) -> None:
    text = "# Title\n\n* item <i>x</i>\n"
    view.set_text(text)
    assert "# Title" not in view.toPlainText()
    view.set_raw(True)
    assert view.toPlainText() == text.rstrip("\n") or view.toPlainText() == text


def _copy_all(qtbot, view: ResponseView) -> str:
    """Select all that is shown and copy it, as Ctrl+A, Ctrl+C do."""
    qtbot.waitUntil(lambda: not view.pending())
    view.selectAll()
    return view.createMimeDataFromSelection().text()


def test_five_megabytes_on_one_line_stays_responsive(qtbot, view: ResponseView) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(5_000_000))
    start = time.perf_counter()
    view.set_text(text)
    view.repaint()
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, f"showing 5 MB took {elapsed:.2f} s"
    assert _copy_all(qtbot, view) == text[: view.part_range()[1]]  # no break added


def test_every_part_of_a_long_line_is_shown_in_turn_and_copied_as_it_is(
    qtbot, view: ResponseView
) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(1_000_000))
    notices = []
    view.noticeChanged.connect(notices.append)
    view.set_text(text)
    pieces = []
    while True:
        pieces.append(_copy_all(qtbot, view))
        assert pieces[-1] == text[slice(*view.part_range())]
        if view.part_range()[1] == len(text):
            break
        view.next_part()
    assert "".join(pieces) == text  # every character, in order
    last = f"showing characters {view.part_range()[0] + 1:,}–1,000,000 of 1,000,000"
    assert notices[-1] == f"plain text, too long for markdown; {last}"
    view.previous_part()
    assert view.part_range()[1] == view.part_range()[0] + len(pieces[-2])


def test_raw_text_shows_control_characters_and_copies_the_text_back(
    qtbot, view: ResponseView
) -> None:
    text = "NUL\0 BEL\a ESC\x1b[31m DEL\x7f\r\nzero\u200bwidth \U0001f600 " + "x" * 1_200
    view.set_text(text, raw=True)
    qtbot.waitUntil(lambda: not view.pending())
    shown = view.toPlainText()
    assert shown.startswith("NUL␀ BEL␇ ESC␛[31m DEL␡\nzero\u200bwidth \U0001f600 x")
    assert shown.count("\u200b") == 1 + (1_200 - 1) // STEP  # its own, and breaks in the run
    assert _copy_all(qtbot, view) == text
    cursor = view.textCursor()  # a part of it: from after the emoji (two places) to the end
    cursor.setPosition(shown.index("\U0001f600") + 2)
    cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
    view.setTextCursor(cursor)
    assert view.createMimeDataFromSelection().text() == " " + "x" * 1_200


def test_markdown_with_a_long_run_copies_without_its_breaks(qtbot, view: ResponseView) -> None:
    run = "y" * 1_500
    view.set_text(f"A **{run}** run.\n\n| a | b |\n|---|---|\n| {run} | zero\u200bwidth |\n")
    qtbot.waitUntil(lambda: not view.pending())
    assert view.toPlainText().count("\u200b") == 1 + 2 * ((1_500 - 1) // STEP)  # its own, breaks
    copied = _copy_all(qtbot, view)
    assert f"A {run} run." in copied and run + "\n" in copied and "zero\u200bwidth" in copied
    assert copied.count("\u200b") == 1


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (
            "|" + "x|" * 400 + "\n|" + "-|" * 400 + "\n|" + "1|" * 400 + "\n",
            "800 table cells, too many",
        ),
        ("- item\n" * 700, "700 list items, too many"),
        ("a\n" * 3_000, "3,001 lines, too many"),
        ("word " * 4_000, "too long"),
        ("aا" * 4_000, "too many changes of script"),
    ],
)
def test_markdown_too_slow_to_lay_out_is_shown_as_plain_text_and_says_so(
    qtbot, view: ResponseView, text: str, why: str
) -> None:
    notices = []
    view.noticeChanged.connect(notices.append)
    view.set_text(text)
    qtbot.waitUntil(lambda: not view.pending())
    assert notices[-1].startswith(f"plain text, {why} for markdown")
    start, end = view.part_range()
    assert view.toPlainText().replace(BREAK, "").startswith(text[:20])
    assert _copy_all(qtbot, view) == text[start:end]
    view.set_raw(True)
    assert not notices[-1].startswith("plain text")  # raw is plain: nothing to say of it


def _line_tops(view: ResponseView, *starts: str) -> list[int]:
    """Where on screen each of ``starts`` begins (the top of its line)."""
    text = view.toPlainText()
    tops = []
    for start in starts:
        cursor = view.textCursor()
        cursor.setPosition(text.index(start))
        tops.append(view.cursorRect(cursor).top())
    return tops


def test_one_line_break_is_a_line_break(view: ResponseView) -> None:
    """Demo pair 2: three lines of arithmetic stay three lines, as a chat shows them."""
    demo = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]
    response = demo[1]["response_a"]
    assert "\n" in response.split("\n\n")[0]  # single breaks, not paragraphs
    view.set_text(response)
    tops = _line_tops(view, "Undiscounted total", "Discount (15%)", "Final amount", "The club")
    assert tops == sorted(tops) and len(set(tops)) == 4, tops
    shown = view.toPlainText()
    assert "= €57.00\nDiscount (15%)" in shown and "**" not in shown


def test_line_breaks_leave_code_lists_tables_and_headings_as_they_were(
    view: ResponseView,
) -> None:
    view.set_text(
        "# Title\nfirst\nsecond\n\n```python\nx = 1\n\ny = 2\n```\n\n- one\n- two\n  more\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n> lines\n"
    )
    doc = view.document()
    blocks = []
    block = doc.begin()
    while block.isValid():
        blocks.append(block)
        block = block.next()
    texts = [b.text() for b in blocks]
    assert blocks[texts.index("Title")].blockFormat().headingLevel() == 1
    # One paragraph, one list item, one quote: each on two lines.
    for joined in ("first\u2028second", "two\u2028more", "quoted\u2028lines"):
        assert joined in texts, texts
        top, bottom = _line_tops(view, *joined.split("\u2028"))
        assert bottom > top
    code = texts.index("x = 1")
    assert texts[code : code + 3] == ["x = 1", "", "y = 2"]  # the code's own lines, no more
    items = [b for b in blocks if b.textList() is not None]
    assert [b.text() for b in items] == ["one", "two\u2028more"]  # no bullet added
    table = QTextCursor(doc)
    table.setPosition(blocks[texts.index("1")].position())
    assert table.currentTable() is not None
    assert (table.currentTable().rows(), table.currentTable().columns()) == (2, 2)
    view.selectAll()
    copied = view.createMimeDataFromSelection().text()
    assert "first\nsecond" in copied and "two\nmore" in copied


def test_a_long_text_is_laid_out_at_the_width_the_view_has_when_shown(qtbot) -> None:
    """Given to a view not shown yet (a window still opening), a long text waits for the
    view's width; a view that grows wider lays it out again, in fewer lines."""
    view = ResponseView()
    qtbot.addWidget(view)
    view.resize(400, 300)
    view.set_text("word " * 3_000)
    assert view.pending() and view.toPlainText() == ""  # no layout at a width not known yet
    view.show()
    qtbot.waitUntil(lambda: not view.pending())
    assert view.toPlainText().startswith("word word")
    narrow = view.document().size().height()
    view.resize(800, 300)
    qtbot.waitUntil(lambda: view.document().size().height() < narrow * 0.6)
    assert view.document().textWidth() == view.viewport().width()


def test_quitting_after_a_copy_ends_cleanly() -> None:
    """The clipboard keeps what was copied until the process ends, after Python is gone;
    a copy made in Python then crashed the process as it quit (exit code 139)."""
    code = (
        "from PySide6.QtWidgets import QApplication\n"
        "from desktop.ui.response_view import ResponseView\n"
        "app = QApplication([])\n"
        "view = ResponseView()\n"
        "view.set_text('copied **text**')\n"
        "view.selectAll()\n"
        "view.copy()\n"
        "print(QApplication.clipboard().text())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(REPO)},
    )
    assert (done.returncode, done.stdout) == (0, "copied text\n"), done.stderr


def test_any_selection_of_shown_plain_text_copies_the_text_it_shows() -> None:
    """Breaks, symbols for control characters and CR LF shown as one break: whatever is
    selected of what is shown, a copy is the text's own characters there, in order."""
    rng = random.Random(7)
    pieces = ["a", "\r\n", "\r", "\n", "\0", "\x1b", " ", "\u200b", "\u0301", "\u200d", "😀",
              "\x7f", "\t", "\u2028", "é"]  # fmt: skip
    for _ in range(100):
        text = "".join(
            rng.choice(pieces) if rng.random() < 0.4 else "x" * rng.randint(0, 1_200)
            for _ in range(rng.randint(0, 12))
        )
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        shown = plain(text, start, end)
        size = len(shown.text.encode("utf-16-le")) // 2  # places in a document
        assert shown.copied(0, size) == text[start:end]
        for _ in range(10):
            a = rng.randint(0, size)
            b = rng.randint(a, size)
            assert shown.copied(a, b) in text[start:end]
        assert (
            max(map(len, re.findall(f"[^ \t\n\r\u2028\u2029{BREAK}]+", shown.text)), default=0)
            <= RUN + 16
        )
