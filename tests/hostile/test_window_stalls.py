"""Long unbroken texts never hold the window: no step a reviewer takes keeps the event loop
from its work for more than 100 ms, whatever the pair holds, and every character is still
there to see and to copy.

The texts are those of the outside run (a response of 99,999 and of 199,999 characters
with no space, a markdown table of 5,000 columns, 110,000 NULs and control characters),
others that Qt lays out slowly (a list of 5,000 items, 8,000 single line breaks, mixed
scripts with no space), and four just within what is still laid out as markdown (one a
heading above a run of 15,000 letters, whose raw text must not keep the heading's font). Each
fills every text of a pair (instruction, both responses, reference, source), as one
careless import would. Stalls are read in the GUI thread's own time (tests/stall_meter.py),
which other work on a shared machine does not stretch; a wall time past 2 s (a window
blocked, not busy) fails too. What is shown is checked too: a copy of it gives the text's
own characters (as Qt's markdown reader reads them, for markdown), and raw text is the
plain monospace font.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QTextDocument
from PySide6.QtWidgets import QApplication, QDialog, QPushButton

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from desktop.ui.layout_cost import markdown_size
from desktop.ui.main_window import MainWindow
from desktop.ui.response_view import ResponseView
from desktop.ui.shown_text import BREAK
from desktop.ui.verdict_panel import NOTE_LIMIT
from tests.gui_helpers import drawn_fonts, open_window, press
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile
from tests.openai_server import OpenAIServer
from tests.stall_meter import Stall, StallMeter

pytestmark = pytest.mark.usefixtures("qapp")
CTRL = Qt.KeyboardModifier.ControlModifier
HELD_MS, BLOCKED_MS = 100.0, 2_000.0


def _table(columns: int) -> str:
    cells = "|".join(f"c{i}" for i in range(columns))
    return f"|{cells}|\n|{'---|' * columns}\n|{cells}|\n"


def _controls(n: int) -> str:
    """NULs and every other control character but the two that end a line."""
    unit = "\0" * 40 + "".join(chr(c) for c in range(1, 32) if c not in (10, 13)) + "\x7f\x85\x9b"
    return (unit * (n // len(unit) + 1))[:n]


TEXTS = {
    "99,999 letters, no space": "x" * 99_999,
    "199,999 letters, no space": "y" * 199_999,
    "a markdown table of 5,000 columns": _table(5_000),
    "110,000 NULs and control characters": _controls(110_000),
    "a markdown table of 300 columns": _table(300),
    "a markdown list of 5,000 items": "- item\n" * 5_000,
    "a markdown list of 2,000 items": "- i\n" * 2_000,
    "8,000 single line breaks": "a\n" * 8_000,
    "16,000 characters alternating Latin and Arabic": "aا" * 8_000,
    "100,000 characters of mixed scripts and emoji, no space": "aб漢ا😀\u202e" * 16_667,
    # As much as is still laid out as markdown:
    "a markdown table of 50 rows and 5 columns": "|a|b|c|d|e|\n|-|-|-|-|-|\n"
    + "| cell | **bold** | `code` | 12.5 | [link](https://example.org) |\n" * 50,
    "a markdown list of 600 items": "".join(f"{i}. item *{i}*\n" for i in range(600)),
    "16,000 characters of prose in one paragraph": ("Lorem *ipsum* dolor sit amet. " * 534)[
        :16_000
    ],
    "a heading above a run of 15,000 letters": "# A heading\n\n" + "z" * 15_000,
}


@pytest.fixture(params=list(TEXTS), name="hostile_text")
def hostile_text_fixture(request: pytest.FixtureRequest) -> str:
    return TEXTS[request.param]


def _project(folder: Path, text: str) -> Path:
    """p0 ordinary, p1 the text in every field, p2 ordinary again."""
    project = new_project(folder)
    ordinary = {"instruction": "Add 2 and 2.", "output_1": "4", "output_2": "Four.",
                "reference": "4", "source": "sums"}  # fmt: skip
    hostile = {"instruction": text, "output_1": text, "output_2": text, "reference": text,
               "source": text}  # fmt: skip
    rows = [{"id": "p0", **ordinary}, {"id": "p1", **hostile}, {"id": "p2", **ordinary}]
    with open_project(project) as store:
        import_file(store, write_jsonl(folder / "pairs.jsonl", rows))
    return project


class _Steps(StallMeter):
    """Each step checked as it ends: the window answered within ``HELD_MS``."""

    def step(self, name: str, action: Callable[[], object], timeout: float = 30.0) -> Stall:
        stall = super().step(name, action, timeout)
        assert stall.cpu_ms <= HELD_MS, f"{name} held the window {stall}"
        assert stall.wall_ms <= BLOCKED_MS, f"{name} blocked the window {stall}"
        return stall


def _settled(qtbot, window: MainWindow) -> None:
    """The window as a reviewer meets it once it has shown: its start-up work done and
    what it keeps for good frozen out of the collector's walks (desktop/services/
    gc_freeze.py), which a test run's heap, full of earlier tests' windows, otherwise
    walks for 100 to 250 ms at a time."""
    import gc

    qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=10_000)
    qtbot.wait(50)


def _views(window: MainWindow) -> list[ResponseView]:
    return [pane.view for pane in window.display.pair_view.panes() if pane.isVisible()]


def _copy_all(view: ResponseView) -> str:
    """What Ctrl+A, Ctrl+C in the view would put on the clipboard; the view is left as it
    was (the steps measured select as a reviewer does)."""
    cursor = view.textCursor()
    view.selectAll()
    copied = view.createMimeDataFromSelection().text()
    view.setTextCursor(cursor)
    return copied


def _as_markdown_reads_it(text: str) -> str:
    """The words of ``text`` as Qt's markdown reader gives them, without this view's help."""
    document = QTextDocument()
    document.setMarkdown(text, QTextDocument.MarkdownFeature.MarkdownDialectGitHub)
    return " ".join(document.toPlainText().split())


def _shows_the_text(view: ResponseView, text: str, markdown: bool) -> None:
    copied = _copy_all(view)
    if markdown:
        assert view.part_range() == (0, len(text))
        assert " ".join(copied.split()) == _as_markdown_reads_it(text)
    else:
        assert copied == text[slice(*view.part_range())]  # every character, as it is
    assert BREAK not in copied


def _in_the_plain_monospace_font(view: ResponseView) -> bool:
    """Its first lines (where a heading would be) drawn at the fixed font's size and weight
    (a symbol or a script the font lacks comes from a fallback font, at the same size)."""
    mono = QFontInfo(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    fonts = drawn_fonts(view, lines=5)
    return mono.family() in {family for family, _, _ in fonts} and {
        (weight, size) for _, weight, size in fonts
    } == {(int(QFont.Weight.Normal), float(mono.pixelSize()))}


def test_every_step_on_a_long_text_keeps_the_window_answering(
    qtbot, tmp_path: Path, server: OpenAIServer, hostile_text: str, hostile: Hostile
) -> None:
    window = open_window(qtbot, _project(tmp_path, hostile_text), server)
    window.resize(1400, 900)
    meter = _Steps()
    a = window.display.pair_view.response_a
    step = meter.step
    step("J: show the pair", lambda: press(qtbot, window, Qt.Key.Key_J))
    assert window.session.current.external_id == "p1" and len(_views(window)) == 5
    assert all(view.text() == hostile_text for view in _views(window))
    markdown = not markdown_size(hostile_text).too_big()
    assert a.notice.label.text().startswith("plain text, ") != markdown
    _shows_the_text(a.view, hostile_text, markdown)
    step("R: raw text", lambda: press(qtbot, window, Qt.Key.Key_R))
    assert not a.notice.label.text().startswith("plain text, ")
    for view in _views(window):
        _shows_the_text(view, hostile_text, markdown=False)
        assert _in_the_plain_monospace_font(view)
    step("R: markdown again", lambda: press(qtbot, window, Qt.Key.Key_R))
    step("L: scroll A and B together", lambda: press(qtbot, window, Qt.Key.Key_L))
    bar = a.view.verticalScrollBar()
    step("scroll A, B follows", lambda: bar.setValue(bar.maximum() // 2))
    step("resize the window", lambda: window.resize(900, 700))
    step("resize it back", lambda: window.resize(1400, 900))
    a.view.setFocus()
    step("End: the end of A", lambda: qtbot.keyClick(a.view, Qt.Key.Key_End))
    assert bar.value() == bar.maximum() > 0
    step("Ctrl+A: select all of A", lambda: qtbot.keyClick(a.view, Qt.Key.Key_A, CTRL))
    step("Ctrl+C: copy it", lambda: qtbot.keyClick(a.view, Qt.Key.Key_C, CTRL))
    start, end = a.view.part_range()
    copied = QApplication.clipboard().text()
    assert BREAK not in copied if markdown else copied == hostile_text[start:end]  # as it is
    if end < len(hostile_text):
        later = a.notice.later
        step("later: the next part", lambda: qtbot.mouseClick(later, Qt.MouseButton.LeftButton))
        start, end = a.view.part_range()
        assert a.notice.label.text().endswith(
            f"showing characters {start + 1:,}–{end:,} of {len(hostile_text):,}"
        )
    window.pairs.focus()
    step("K: back to an ordinary pair", lambda: press(qtbot, window, Qt.Key.Key_K))
    step("Ctrl+F: to the search box", lambda: press(qtbot, window, Qt.Key.Key_F, CTRL))
    step("search for the pair", lambda: qtbot.keyClicks(window.pairs.search, "p1"))
    step("Enter: the first match", lambda: qtbot.keyClick(window.pairs.search, Qt.Key.Key_Return))
    assert window.session.current.external_id == "p1"
    hostile.held()
    window.context.runner.shutdown()


def _close_when_shown(texts: list[str]) -> None:
    """Once the pop-up's text is laid out: note what it shows, and close it."""

    def look() -> None:
        box = QApplication.activeModalWidget()
        views = box.findChildren(ResponseView) if isinstance(box, QDialog) else []
        if not views or views[0].pending():
            QTimer.singleShot(10, look)
            return
        texts.append(views[0].text())
        box.reject()

    QTimer.singleShot(10, look)


def test_the_pop_ups_and_the_note_field_on_a_long_text_keep_the_window_answering(
    qtbot, tmp_path: Path, server: OpenAIServer, hostile_text: str, hostile: Hostile
) -> None:
    """The judge's answer is the text, the prompt holds it (as much as a prompt may), and
    the reviewer pastes it into the note."""
    project = new_project(tmp_path)
    row = {"id": "p0", "instruction": "Which?", "output_1": hostile_text[:90_000],
           "output_2": "Four.", "reference": "4"}  # fmt: skip
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", [row]))
    server.responder = lambda request: hostile_text
    window = open_window(qtbot, project, server)
    meter = _Steps()
    buttons = {b.text(): b for b in window.findChildren(QPushButton)}
    shown: list[str] = []

    def pop_up(button: str) -> None:
        _close_when_shown(shown)
        qtbot.mouseClick(buttons[button], Qt.MouseButton.LeftButton)

    def judge() -> None:
        press(qtbot, window, Qt.Key.Key_J, CTRL)
        qtbot.waitUntil(lambda: not window.judging.running, timeout=60_000)

    meter.step("Ctrl+J: the judge answers with the text", judge)
    meter.step("the raw completion", lambda: pop_up("Raw completion"))
    assert hostile_text in shown[-1]
    meter.step("the prompt", lambda: pop_up("Prompt"))
    assert hostile_text[:90_000] in shown[-1]
    QApplication.clipboard().setText(hostile_text)
    note = window.display.verdicts.note
    meter.step("N: to the note", lambda: press(qtbot, window, Qt.Key.Key_N))
    meter.step("Ctrl+V: paste the text", lambda: qtbot.keyClick(note, Qt.Key.Key_V, CTRL))
    pasted = note.text()  # as much as the field holds (Qt counts an emoji as two)
    assert pasted and hostile_text.startswith(pasted) and len(pasted) <= NOTE_LIMIT
    if len(hostile_text) > NOTE_LIMIT:
        cut = f"a note holds at most {NOTE_LIMIT:,} characters"
        assert window.statusBar().currentMessage() == cut
    meter.step("Enter: save the note", lambda: qtbot.keyClick(note, Qt.Key.Key_Return))
    assert window.statusBar().currentMessage() == "note saved"
    assert window.session.verdict_views().notes == {"precision": pasted}
    hostile.held()
    window.context.runner.shutdown()


def _few_words(n: int, seed: int) -> str:
    """``n`` characters of a few words repeated in no order: nearly every word is on the
    other side too, in many places (a matcher's worst case)."""
    import random

    rng = random.Random(seed)
    words = ("the", "cat", "sat", "on", "mat")
    text = " ".join(rng.choice(words) for _ in range(n // 3))
    return text[:n]


def _every_other_word(n: int, other: str) -> str:
    """``n`` characters in one paragraph, every other word ``other``: two such texts differ
    in 2,000 places, each marked."""
    return " ".join(f"w{i} {other}" for i in range(n // 5))[:n]


DIFFERENT_TEXTS = {
    # the two texts, and a letter only they hold, to search for
    "7,800 characters of five words in no order": (
        _few_words(7_800, 1),
        _few_words(7_800, 2),
        "m",
    ),
    "16,000 characters in one paragraph, every other word differs": (
        _every_other_word(16_000, "a"),
        _every_other_word(16_000, "b"),
        "w",
    ),
}


@pytest.mark.parametrize("texts", list(DIFFERENT_TEXTS))
def test_differences_of_two_long_texts_keep_the_window_answering(
    qtbot, tmp_path: Path, server: OpenAIServer, texts: str, hostile: Hostile
) -> None:
    """D on, raw text, two long answers: comparing two texts of a few words is work that
    grows with the square of their length, done off the GUI thread and bounded, the marks
    written once it is done (a pair shown meanwhile never gets the old pair's marks); and
    2,000 marks in one paragraph, or a one-letter search's, are painted as quickly as none
    (Qt drew each of the views' extra selections over the whole paragraph again)."""
    project = new_project(tmp_path)
    a, b, letter = DIFFERENT_TEXTS[texts]
    rows = [
        {"id": "p0", "instruction": "Add 2 and 2.", "output_1": "It is 4.", "output_2": "4"},
        {"id": "p1", "instruction": "Repeat.", "output_1": a, "output_2": b},
        {"id": "p2", "instruction": "Add 2 and 3.", "output_1": "It is 5.", "output_2": "6"},
    ]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    window = open_window(qtbot, project, server)
    window.resize(1400, 900)
    _settled(qtbot, window)
    view = window.display.pair_view
    a_view = view.response_a.view
    meter = _Steps(also_wait=view.diff.pending)
    step = meter.step
    step("R: raw text", lambda: press(qtbot, window, Qt.Key.Key_R))
    step("D: differences marked", lambda: press(qtbot, window, Qt.Key.Key_D))
    step("J: the pair of long texts", lambda: press(qtbot, window, Qt.Key.Key_J))
    assert window.session.current.external_id == "p1"
    assert a_view.marks("diff") and view.response_b.view.marks("diff")
    bar = a_view.verticalScrollBar()
    step("scroll A", lambda: bar.setValue(bar.maximum() // 2))
    step("R: markdown", lambda: press(qtbot, window, Qt.Key.Key_R))
    assert a_view.marks("diff")
    step("J, K: on and back", lambda: (press(qtbot, window, Qt.Key.Key_J),
                                       press(qtbot, window, Qt.Key.Key_K)))  # fmt: skip
    assert a_view.marks("diff") and window.session.current.external_id == "p1"
    step("Ctrl+F: to the search box", lambda: press(qtbot, window, Qt.Key.Key_F, CTRL))
    step("search for a letter", lambda: qtbot.keyClicks(window.pairs.search, letter))
    qtbot.waitUntil(lambda: bool(a_view.marks("search")), timeout=5_000)
    step("scroll A again", lambda: bar.setValue(bar.maximum() // 3))
    window.pairs.search.clear()
    window.pairs.new_query()
    qtbot.waitUntil(lambda: window.pairs.model.rowCount() == 3)
    window.pairs.focus()
    step("K: an ordinary pair", lambda: press(qtbot, window, Qt.Key.Key_K))
    assert window.session.current.external_id == "p0"
    assert a_view.marked("diff") == ["It is", "."]
    step("D: off", lambda: press(qtbot, window, Qt.Key.Key_D))
    assert a_view.marked() == []
    hostile.held()
    window.context.runner.shutdown()


def _mixed_scripts(n: int) -> str:
    """Hebrew, Arabic and Latin letters interleaved, no space: each letter starts another
    run for Qt to shape, and no line may break."""
    unit = "אבגابتabc"
    return (unit * (n // len(unit) + 1))[:n]


def test_a_long_reasoning_in_mixed_scripts_keeps_the_window_answering(
    qtbot, tmp_path: Path, hostile: Hostile
) -> None:
    """The judge's reasoning (up to 20,000 characters) of Hebrew, Arabic and Latin with no
    space: laid out as a response's text is, never in one go."""
    from desktop.domain.judge_reasoning import MAX_CHARS
    from desktop.services.app_settings import AppSettings
    from desktop.services.session import ReviewSession

    reason = _mixed_scripts(MAX_CHARS)
    record = {"instruction": "Name a prime.", "output_1": "7", "output_2": "9",
              "generator_1": "m1", "generator_2": "m2",
              "annotator": "alpaca_eval_cot_gpt4_turbo_fn", "preference": 1.0,
              "raw_completion": {"concise_explanation": reason, "ordered_models": []}}  # fmt: skip
    ordinary = {**record, "instruction": "Name another prime.",
                "raw_completion": {"concise_explanation": "7 is a prime.",
                                   "ordered_models": []}}  # fmt: skip
    data = tmp_path / "annotations.json"
    import json

    data.write_text(json.dumps([ordinary, record]), encoding="utf-8")
    project = new_project(tmp_path)
    with open_project(project) as store:
        import_file(store, data)
    settings = AppSettings(reviewer="ada", profile="local")
    session = ReviewSession.open(project, settings)
    session.choose_rubric("alpaca-eval")
    window = MainWindow(session, settings)
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    window.activateWindow()
    qtbot.waitExposed(window)
    qtbot.waitUntil(window.isActiveWindow)
    window.pairs.focus()
    panel = window.display.reasoning
    qtbot.waitUntil(lambda: panel.shown_text() != "")  # after the first frame
    _settled(qtbot, window)
    meter = _Steps()
    step = meter.step
    step("J: the pair with the long reasoning", lambda: press(qtbot, window, Qt.Key.Key_J))
    shown_now = panel.shown_text()
    assert shown_now and reason.startswith(shown_now)  # as much as is quick, in order
    step("E: fold it", lambda: press(qtbot, window, Qt.Key.Key_E))
    step("E: unfold it", lambda: press(qtbot, window, Qt.Key.Key_E))
    step("resize the window", lambda: window.resize(900, 700))
    step("resize it back", lambda: window.resize(1400, 900))
    step("K: back to an ordinary pair", lambda: press(qtbot, window, Qt.Key.Key_K))
    assert panel.shown_text() == "7 is a prime."
    hostile.held()
    window.context.runner.shutdown()


def test_a_conversation_of_twenty_turns_of_long_texts_keeps_the_window_answering(
    qtbot, tmp_path: Path, server: OpenAIServer, hostile: Hostile
) -> None:
    """Twenty turns, every request 18,000 characters of mixed scripts with no space and
    every answer 20,000 letters with no space (each longer than is shown at once; 1.5 MB
    in all, as much as the five texts of the other cases): the history unfolded (H),
    moved through ([), shown raw (R) and compared (D), each step within 100 ms, every
    message there."""
    request, answer = "aб漢ا😀\u202e" * 3_000, "x" * 20_000
    roles = ("user", "assistant")
    messages = [{"role": roles[i % 2], "content": (request, answer)[i % 2]} for i in range(40)]
    other = [*messages[:-1], {"role": "assistant", "content": "y" * 20_000}]
    project = new_project(tmp_path)
    ordinary = {"id": "p0", "instruction": "Add 2 and 2.", "output_1": "4", "output_2": "Four."}
    chat = {"id": "chat", "conversation_a": messages, "conversation_b": other, "turn": 20}
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "a.jsonl", [ordinary]))
        import_file(store, write_jsonl(tmp_path / "b.jsonl", [chat]))
    window = open_window(qtbot, project, server)
    window.resize(1400, 900)
    _settled(qtbot, window)
    view = window.display.pair_view
    meter = _Steps(also_wait=lambda: any(d.pending() for d in view.before.diffs()))
    step = meter.step
    step("J: the conversation", lambda: press(qtbot, window, Qt.Key.Key_J))
    assert len(view.before.boxes) == 19
    step("H: every turn unfolded", lambda: press(qtbot, window, Qt.Key.Key_H))
    assert all(box.built() for box in view.before.boxes)
    assert len(view.before.views()) == 19 * 2  # a shared history: each message once
    assert all(v.text() in (request, answer) for v in view.before.views())
    step("[: the turn before", lambda: press(qtbot, window, Qt.Key.Key_BracketLeft))
    step("[: and the one before", lambda: press(qtbot, window, Qt.Key.Key_BracketLeft))
    assert view.current_turn() == 18
    step("R: raw text", lambda: press(qtbot, window, Qt.Key.Key_R))
    step("D: differences", lambda: press(qtbot, window, Qt.Key.Key_D))
    step("resize the window", lambda: window.resize(900, 700))
    step("H: folded again", lambda: press(qtbot, window, Qt.Key.Key_H))
    step("K: an ordinary pair", lambda: press(qtbot, window, Qt.Key.Key_K))
    assert not view.before.isVisible()
    hostile.held()
    window.context.runner.shutdown()
