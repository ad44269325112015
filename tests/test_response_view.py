"""Responses are shown literally: HTML as text, nothing loaded, links only on a click."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QTextCursor

from desktop.ui.response_view import ResponseView

pytestmark = pytest.mark.usefixtures("qapp")
DEMO = Path(__file__).resolve().parents[1] / "resources" / "demo_pairs.jsonl"


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


def test_five_megabytes_on_one_line_stays_responsive(view: ResponseView) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(5_000_000))
    start = time.perf_counter()
    view.set_text(text)
    view.repaint()
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, f"showing 5 MB took {elapsed:.2f} s"
    parts = []
    view.partChanged.connect(parts.append)
    pieces = []
    for _ in range(view.parts()):
        pieces.append(view.toPlainText().replace("\u200b", ""))
        view.next_part()
    assert "".join(pieces) == text
    # Every character is reachable, in order, and a copy carries no display-only breaks.
    view.show_part(0)
    view.selectAll()
    copied = view.createMimeDataFromSelection().text()
    assert copied == text[: len(copied)] and len(copied) == 200_000
    view.show_part(view.parts() - 1)
    assert parts[-1] == "characters 4,800,001–5,000,000 of 5,000,000"


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
