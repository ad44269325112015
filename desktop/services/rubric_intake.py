"""A rubric a user gives as a file, for `tiebreak rubric add`: a rubric file (TOML, checked
as the built-ins are) or a plain-text judge template (AlpacaEval/HREF style), converted by
``domain/template_import.py``."""

from __future__ import annotations

from pathlib import Path

from desktop.adapters.file_kinds import refuse_special
from desktop.adapters.rubric_files import load_rubric
from desktop.domain.errors import TiebreakError
from desktop.domain.rubric import AnswerKind, Rubric
from desktop.domain.template_import import rubric_from_template


def read_rubric_file(
    path: Path,
    *,
    name: str | None = None,
    title: str | None = None,
    dimensions: tuple[str, ...] | None = None,
    answer_kind: str | AnswerKind | None = None,
) -> Rubric:
    """The rubric in ``path``: a ``.toml`` file as written, else a template whose name is
    ``name`` or the file's, and whose dimensions and answer format are inferred where not
    given. A file that cannot be one is refused in one line naming it."""
    refuse_special(path, expected="a rubric file")
    if not path.is_file():
        raise TiebreakError(f"{path}: no such file")
    if path.suffix.lower() == ".toml":
        return load_rubric(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a BOM (Windows Notepad) is not text
    except UnicodeDecodeError as exc:
        raise TiebreakError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return rubric_from_template(
        text,
        name=name or _slug(path.stem),
        title=title,
        dimensions=dimensions,
        answer_kind=answer_kind,
    )


def _slug(stem: str) -> str:
    out = "".join(c if c.isalnum() else "-" for c in stem.lower()).strip("-")
    while "--" in out:
        out = out.replace("--", "-")
    return out or "rubric"
