"""A response's markdown as a document that is safe to show and reads as a chat does.

Safe: Qt's image handler opens a file itself whenever a document has no resource for an
image (a FIFO named in a response would block the window for good, a local PNG would be
drawn), so the document handed to a view holds no image at all: each becomes its alt text.
This is done while the document has no layout, and layout is when Qt would open the file.

Read as a chat: LLM answers put one item per line, and markdown joins single line breaks
into one paragraph (three lines of arithmetic read as one run-on line). md4c, Qt's markdown
parser, can make every such soft break a hard one, but Qt then starts a new block at each,
which in a list item makes a new bullet and in a paragraph adds paragraph spacing. So the
text is read twice, with and without that switch: the blocks the switch splits show where
the soft breaks are, and those spaces become line separators in the document without it,
inside the same paragraph or list item. Code, tables and headings are left as they were.

Laid out in time: a run of characters with no break opportunity gets zero-width breaks
(desktop/ui/shown_text.py says why); markdown that would take long to read and lay out is
not read here at all (desktop/ui/layout_cost.py, ``markdown_size``).
"""

from __future__ import annotations

from PySide6.QtGui import QFont, QTextCharFormat, QTextCursor, QTextDocument, QTextFormat

from desktop.ui.shown_text import BREAK, RUN, break_points, has_long_run, utf16_positions

_GITHUB_NO_HTML = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)
# md4c's MD_FLAG_HARD_SOFT_BREAKS (Qt hands its markdown features to md4c as they are).
_HARD_SOFT_BREAKS = QTextDocument.MarkdownFeature(_GITHUB_NO_HTML.value | 0x8000)
_LINE_SEPARATOR = "\u2028"
_IMAGE_PROPERTIES = tuple(
    p.value
    for p in (
        QTextFormat.Property.ObjectType,
        QTextFormat.Property.ImageName,
        QTextFormat.Property.ImageAltText,
        QTextFormat.Property.ImageTitle,
        QTextFormat.Property.ImageWidth,
        QTextFormat.Property.ImageHeight,
        QTextFormat.Property.ImageQuality,
        QTextFormat.Property.ImageMaxWidth,
    )
)


def fill_markdown(document: QTextDocument, text: str, font: QFont) -> list[int]:
    """Read ``text`` into ``document`` (which must not be shown yet): GitHub markdown, HTML
    as text, single line breaks kept, images as their alt text, breaks in long runs.
    Returns where those breaks are (they are not in the text)."""
    document.setUndoRedoEnabled(False)  # shown read-only: nothing to undo
    document.setDefaultFont(font)
    document.setMarkdown(text, _GITHUB_NO_HTML)
    cursor = QTextCursor(document)
    cursor.beginEditBlock()  # one change for Qt to process, not one per edit (100x faster)
    if "\n" in text:
        split = QTextDocument()
        split.setMarkdown(text, _HARD_SOFT_BREAKS)
        _separate_lines(cursor, _soft_breaks(document, split))
    images_as_text(document, cursor)
    breaks = _break_long_runs(document, cursor) if has_long_run(text) else []
    cursor.endEditBlock()
    return breaks


def _break_long_runs(document: QTextDocument, cursor: QTextCursor) -> list[int]:
    found: list[int] = []
    block = document.begin()
    while block.isValid():
        if block.length() > RUN:
            text = block.text()
            if points := break_points(text):
                found.extend(block.position() + p for p in utf16_positions(text, points))
        block = block.next()
    placed = [position + i for i, position in enumerate(found)]  # each moves the rest on
    for position in placed:
        cursor.setPosition(position)
        cursor.insertText(BREAK)  # in the format of the character before it
    return placed


def _blocks(document: QTextDocument) -> list[str]:
    texts = []
    block = document.begin()
    while block.isValid():
        texts.append(block.text())
        block = block.next()
    return texts


def _soft_breaks(joined: QTextDocument, split: QTextDocument) -> list[int]:
    """Positions in ``joined`` of the spaces that ``split`` has as block breaks; none if
    the two do not line up as expected (then the text shows as markdown alone has it)."""
    positions: list[int] = []
    pieces = iter(_blocks(split))
    block = joined.begin()
    while block.isValid():
        target = block.text()
        shown = next(pieces, None)
        while shown is not None and len(shown) < len(target):
            if target[len(shown)] != " ":
                return []
            positions.append(block.position() + len(shown))
            following = next(pieces, None)
            shown = None if following is None else f"{shown} {following}"
        if shown != target:
            return []
        block = block.next()
    return positions


def _separate_lines(cursor: QTextCursor, positions: list[int]) -> None:
    for position in positions:  # one character for one: no position moves
        cursor.setPosition(position + 1)
        fmt = cursor.charFormat()
        cursor.setPosition(position, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(_LINE_SEPARATOR, fmt)


def images_as_text(document: QTextDocument, cursor: QTextCursor | None = None) -> int:
    """Replace every image in ``document`` with ``[image: alt text]`` in the format it had
    otherwise; call before the document is laid out. Returns how many there were."""
    found = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().isImageFormat():
                found.append((fragment.position(), fragment.length(), fragment.charFormat()))
            it += 1
        block = block.next()
    cursor = cursor or QTextCursor(document)
    for position, length, image in reversed(found):  # later positions first: none moves
        alt = str(image.property(QTextFormat.Property.ImageAltText.value) or "").strip()
        text = QTextCharFormat(image)
        for prop in _IMAGE_PROPERTIES:
            text.clearProperty(prop)
        cursor.setPosition(position)
        cursor.setPosition(position + length, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(f"[image: {alt}]" if alt else "[image]", text)
    return len(found)
