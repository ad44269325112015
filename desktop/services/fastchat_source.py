"""A FastChat MT-bench folder as one import source: its files found where FastChat's
``llm_judge/data/<bench>/`` keeps them, read, and handed to the domain's
``fastchat_records``, which pairs the answers (see ``import_shapes/fastchat.py``).

The folder holds ``question.jsonl`` and ``model_answer/*.jsonl`` (one file per model,
named by its ``model_id``, else the file's name, as FastChat's ``load_model_answers``
does); optionally ``reference_answer/gpt-4.jsonl`` (or the only file there, or
``reference_answer_gpt-4.jsonl`` beside the questions) and ``model_judgment/*_pair.jsonl``.
Everything but the pairs is small (80 questions, a few models), so it is read whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from desktop.adapters.formats.readers import Record, read_records
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.fastchat import fastchat_records

QUESTIONS = "question.jsonl"
ANSWERS = "model_answer"


def is_fastchat_folder(path: Path) -> bool:
    return (path / QUESTIONS).is_file() and (path / ANSWERS).is_dir()


def fastchat_source(folder: Path, pair_with: str | None) -> Iterator[Record]:
    """The folder's pairs, one record each (see ``fastchat_records``)."""
    answer_files = sorted((folder / ANSWERS).glob("*.jsonl"))
    if not answer_files:
        raise ImportDataError(f"{folder / ANSWERS}: no model answer files (*.jsonl)")
    answers: dict[str, list[Record]] = {}
    for file in answer_files:
        records = list(read_records(file, "jsonl"))
        named = records[0][1].get("model_id") if records else None
        model = named if isinstance(named, str) and named else file.stem
        if model in answers:
            raise ImportDataError(f"{file}: model {model} has a second answer file")
        answers[model] = records
    judgments = [
        record
        for file in sorted((folder / "model_judgment").glob("*_pair.jsonl"))
        for record in read_records(file, "jsonl")
    ]
    references = _references(folder)
    return fastchat_records(
        read_records(folder / QUESTIONS, "jsonl"),
        answers,
        list(read_records(references, "jsonl")) if references else [],
        judgments,
        pair_with,
    )


def _references(folder: Path) -> Path | None:
    beside = folder / "reference_answer_gpt-4.jsonl"
    if beside.is_file():
        return beside
    found = sorted((folder / "reference_answer").glob("*.jsonl"))
    gpt4 = [f for f in found if f.name == "gpt-4.jsonl"]
    return next(iter(gpt4 or found), None)
