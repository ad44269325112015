"""Rubric files: one human-editable TOML file per rubric, in ``prompts/`` or a project.

Every problem is one line naming the file and the key, because the person fixing it is
looking at the file in an editor, not at a traceback.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from pathlib import Path

from desktop.adapters.file_kinds import refuse_special
from desktop.domain.errors import RubricError
from desktop.domain.rubric import AnswerFormat, AnswerKind, Decoding, Message, Rubric

ROLES = ("system", "user", "assistant")
#: The byte-order mark some editors (Windows Notepad) write before UTF-8 text.
BOM = "\ufeff"
_TOP_KEYS = (
    "name",
    "title",
    "description",
    "requires",
    "dimensions",
    "answer",
    "decoding",
    "fewshot",
    "messages",
)
_ANSWER_KEYS = ("kind", "choices_key", "choice_key", "reason_key")
_DECODING_KEYS = ("temperature", "max_tokens")


def load_rubric(path: Path | str, *, check_templates: bool = True) -> Rubric:
    """Read and check one rubric file. The built-in files skip the template check (the
    test suite makes it), so start-up need not load Jinja2 before a prompt is rendered."""
    path = Path(path)
    refuse_special(path, expected="a rubric file", error=RubricError)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise RubricError(f"{path}: no such file") from None
    except OSError as exc:
        raise RubricError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        text = data.decode("utf-8-sig")  # Windows Notepad starts a UTF-8 file with a BOM
    except UnicodeDecodeError as exc:
        raise RubricError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return rubric_from_text(text, origin=str(path), check_templates=check_templates)


def rubric_from_text(text: str, origin: str, *, check_templates: bool = True) -> Rubric:
    """A rubric from TOML text (a file's, or the copy a project keeps); ``origin`` names
    where it came from in error messages. A byte-order mark before the text is ignored."""
    try:
        data = tomllib.loads(text.removeprefix(BOM))
    except tomllib.TOMLDecodeError as exc:
        raise RubricError(f"{origin}: not valid TOML: {exc}") from None
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        raise RubricError(f"{origin}: not valid TOML: arrays or tables nested too deeply") from None
    return rubric_from_dict(data, origin, check_templates=check_templates)


def rubric_from_dict(
    data: Mapping[str, object], origin: str, *, check_templates: bool = True
) -> Rubric:
    """A rubric from parsed file data, checking every key and template."""
    _no_unknown(data, _TOP_KEYS, origin, "")
    answer_data = _table(data, "answer", origin, required=True)
    decoding_data = _table(data, "decoding", origin, required=False)
    _no_unknown(answer_data, _ANSWER_KEYS, origin, "answer.")
    _no_unknown(decoding_data, _DECODING_KEYS, origin, "decoding.")
    fewshot = data.get("fewshot")
    if fewshot is not None and not isinstance(fewshot, str):
        raise RubricError(f"{origin}: key 'fewshot' must be a string")
    try:
        rubric = Rubric(
            name=_string(data, "name", origin),
            title=_string(data, "title", origin),
            description=_string(data, "description", origin, empty_ok=True),
            requires=_strings(data, "requires", origin, required=False),
            dimensions=_strings(data, "dimensions", origin, required=True),
            answer=_answer(answer_data, origin),
            decoding=_decoding(decoding_data, origin),
            fewshot=fewshot,
            messages=_messages(data, origin, check_templates),
        )
    except RubricError as exc:
        if str(exc).startswith(origin):
            raise
        raise RubricError(f"{origin}: {exc}") from None
    if not check_templates:
        return rubric
    from desktop.domain.render import used_variables

    if fewshot is not None and not any(
        "fewshot" in used_variables(m.content) for m in rubric.messages
    ):
        raise RubricError(f"{origin}: key 'fewshot' is set, but no message uses {{{{ fewshot }}}}")
    return rubric


def dump_rubric(rubric: Rubric) -> str:
    """The rubric as TOML text; ``rubric_from_text(dump_rubric(r), ...) == r``."""
    import tomli_w  # only to write a rubric out

    data = rubric.to_dict()
    escaped = tomli_w.dumps(data)
    readable = tomli_w.dumps(data, multiline_strings=True)  # templates stay readable
    # A multi-line string keeps only "\n" line breaks (tomli_w writes "\r\n" as one), so a
    # rubric that would not come back the same is written with escapes instead.
    return readable if tomllib.loads(readable) == tomllib.loads(escaped) else escaped


# ---- key checks ---------------------------------------------------------------------------


def _no_unknown(
    table: Mapping[str, object], known: tuple[str, ...], origin: str, prefix: str
) -> None:
    for key in table:
        if key not in known:
            raise RubricError(f"{origin}: unknown key '{prefix}{key}' (known: {', '.join(known)})")


def _table(
    data: Mapping[str, object], key: str, origin: str, *, required: bool
) -> Mapping[str, object]:
    if key not in data:
        if required:
            raise RubricError(f"{origin}: missing table [{key}]")
        return {}
    value = data[key]
    if not isinstance(value, dict):
        raise RubricError(f"{origin}: key '{key}' must be a table ([{key}])")
    return value


def _string(data: Mapping[str, object], key: str, origin: str, *, empty_ok: bool = False) -> str:
    if key not in data:
        raise RubricError(f"{origin}: missing key '{key}'")
    value = data[key]
    if not isinstance(value, str) or (not empty_ok and not value.strip()):
        raise RubricError(f"{origin}: key '{key}' must be a non-empty string")
    return value


def _strings(
    data: Mapping[str, object], key: str, origin: str, *, required: bool
) -> tuple[str, ...]:
    if key not in data:
        if required:
            raise RubricError(f"{origin}: missing key '{key}'")
        return ()
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise RubricError(f"{origin}: key '{key}' must be a list of strings")
    return tuple(value)


def _answer(data: Mapping[str, object], origin: str) -> AnswerFormat:
    kind = data.get("kind")
    if kind is None:
        raise RubricError(f"{origin}: missing key 'answer.kind'")
    try:
        answer_kind = AnswerKind(str(kind))
    except ValueError:
        raise RubricError(
            f"{origin}: key 'answer.kind' must be one of {', '.join(k.value for k in AnswerKind)},"
            f" not {kind!r}"
        ) from None
    keys: dict[str, str] = {}
    for key in ("choices_key", "choice_key", "reason_key"):
        if key in data:
            value = data[key]
            if not isinstance(value, str) or not value:
                raise RubricError(f"{origin}: key 'answer.{key}' must be a non-empty string")
            keys[key] = value
    return AnswerFormat(kind=answer_kind, **keys)


def _decoding(data: Mapping[str, object], origin: str) -> Decoding:
    out = Decoding()
    temperature = data.get("temperature", out.temperature)
    if (
        isinstance(temperature, bool)
        or not isinstance(temperature, int | float)
        or not math.isfinite(temperature)
        or not 0 <= temperature <= 2
    ):
        raise RubricError(f"{origin}: key 'decoding.temperature' must be a number from 0 to 2")
    max_tokens = data.get("max_tokens", out.max_tokens)
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise RubricError(f"{origin}: key 'decoding.max_tokens' must be a positive integer")
    return Decoding(temperature=float(temperature), max_tokens=max_tokens)


def _messages(
    data: Mapping[str, object], origin: str, check_templates: bool
) -> tuple[Message, ...]:
    items = data.get("messages")
    if items is None:
        raise RubricError(f"{origin}: missing [[messages]]")
    if not isinstance(items, list) or not items or not all(isinstance(m, dict) for m in items):
        raise RubricError(f"{origin}: key 'messages' must be one or more [[messages]] tables")
    out = []
    for i, item in enumerate(items):
        where = f"messages[{i + 1}]"
        _no_unknown(item, ("role", "content"), origin, f"{where}.")
        role = item.get("role")
        if role not in ROLES:
            raise RubricError(f"{origin}: key '{where}.role' must be one of {', '.join(ROLES)}")
        content = item.get("content")
        if not isinstance(content, str):
            raise RubricError(f"{origin}: key '{where}.content' must be a string")
        try:
            if check_templates:
                from desktop.domain.render import check_template

                check_template(content)
        except RubricError as exc:
            raise RubricError(f"{origin}: key '{where}.content': {exc}") from None
        out.append(Message(role=role, content=content))
    return tuple(out)
