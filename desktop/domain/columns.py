"""Which column of a data file holds which pair field.

Common names from AlpacaEval, HREF, MT-bench-style and Label Studio-style exports are
recognised; ``--map FIELD=COLUMN`` overrides. Columns that are no pair field are kept as
metadata, so nothing in a user's file is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from desktop.domain.errors import ImportDataError

SYNONYMS: dict[str, tuple[str, ...]] = {
    "instruction": ("instruction", "prompt", "question", "query", "input", "user_prompt"),
    "response_a": (
        "response_a",
        "output_1",
        "answer_a",
        "output_a",
        "completion_a",
        "response_1",
        "model_a_response",
        "response1",
        "chosen",
    ),
    "response_b": (
        "response_b",
        "output_2",
        "answer_b",
        "output_b",
        "completion_b",
        "response_2",
        "model_b_response",
        "response2",
        "rejected",
    ),
    "reference": (
        "reference",
        "output_human",
        "human_reference",
        "reference_answer",
        "human_response",
        "gold",
        "ground_truth",
    ),
    "source": ("source", "source_text", "text", "context", "document", "passage"),
    # Names of the pair. Not question_id or prompt_id: those name the question, which
    # several pairs share (an MT-bench vote, an Arena battle); they stay metadata.
    "external_id": ("id", "external_id", "pair_id", "uid"),
    "model_a": ("model_a", "generator_1", "generator_a", "model_1"),
    "model_b": ("model_b", "generator_2", "generator_b", "model_2"),
    "category": ("category", "dataset", "task", "type", "subset"),
}
FIELDS = tuple(SYNONYMS)


def candidates(field: str) -> tuple[str, ...]:
    """The column names that may hold ``field``, in the order tried: the field's own name
    first (Tiebreak's own export has an ``id``, the row id in its project, beside
    ``external_id``, the pair's name), then its SYNONYMS."""
    return (field, *(n for n in SYNONYMS[field] if n != field))


REQUIRED = ("instruction", "response_a", "response_b")


def parse_map_options(options: Iterable[str]) -> dict[str, str]:
    """``["instruction=question", ...]`` to a mapping, refusing unknown fields."""
    out: dict[str, str] = {}
    for option in options:
        field, sep, column = option.partition("=")
        field, column = field.strip(), column.strip()
        if not sep or not field or not column:
            raise ImportDataError(f"--map {option!r}: expected FIELD=COLUMN")
        if field not in SYNONYMS:
            raise ImportDataError(
                f"--map {option!r}: unknown field {field!r} (known: {', '.join(FIELDS)})"
            )
        if field in out:
            raise ImportDataError(f"--map {field}: given twice ({out[field]!r} and {column!r})")
        # One column for two fields would show the same text as both responses.
        other = next((f for f, c in out.items() if c == column), None)
        if other is not None:
            raise ImportDataError(
                f"--map {other}={column} and --map {field}={column}: one column for two"
                " fields; each field needs a column of its own"
            )
        out[field] = column
    return out


def resolve_columns(
    columns: Iterable[str], overrides: Mapping[str, str], where: str
) -> dict[str, str]:
    """Field -> column for a file whose first record has ``columns``."""
    present = list(columns)
    lowered = {c.strip().lower(): c for c in present}
    resolved: dict[str, str] = {}
    for field, column in overrides.items():
        if column not in present:
            raise ImportDataError(
                f"{where}: --map {field}={column}: no column {column!r} in the file"
            )
        resolved[field] = column
    taken = set(resolved.values())
    for field in SYNONYMS:
        if field in resolved:
            continue
        for name in candidates(field):
            found = lowered.get(name)
            if found is not None and found not in taken:
                resolved[field] = found
                taken.add(found)
                break
    missing = [f for f in REQUIRED if f not in resolved]
    if missing:
        field = missing[0]
        raise ImportDataError(
            f"{where}: no column for {field} (looked for {', '.join(SYNONYMS[field][:4])}, ...;"
            f" the file has {', '.join(present[:8]) or 'no columns'}); use --map {field}=COLUMN"
        )
    return resolved
