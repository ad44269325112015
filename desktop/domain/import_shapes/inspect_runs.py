"""Two runs of one Inspect AI task as pairs: one pair per sample both logs hold (the same
sample id and epoch), each side that run's messages in Inspect's own form, compared as two
trajectories (``conversations.ConversationShape.TWO_TRAJECTORIES``: the same system
message, task and tools, everything after free to differ).

A record is what the import service made of the two logs' samples (plain data, see
``adapters/formats/inspect_logs.py``): ``task``, ``id``, ``epoch``, ``target`` (the
sample's: the pair's reference), and ``a`` and ``b``, each with its log's ``log`` (file
name), ``eval_id``, ``run_id``, ``task_id``, ``model``, and its sample's ``messages``,
``tools``, ``scores`` and ``error``. It is not among the
shapes a data file is read as (``SHAPES``): only two logs give one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from desktop.domain.conversation_comparison import pair_fields
from desktop.domain.conversations import Conversation, ConversationError, messages
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import Columns, Shape, ShapedRecord
from desktop.domain.import_shapes.conversation_parts import BATCH
from desktop.domain.trajectory import tool_name

#: What each side's log says of the sample, kept in the pair's metadata (``_a``, ``_b``).
_PER_LOG = ("log", "eval_id", "run_id", "task_id", "scores", "error")


def external_id(
    task: object, sample_id: object, epoch: object, eval_a: object, eval_b: object
) -> str:
    """The pair's id: the task, sample and epoch, and the two evals compared (so one
    project may hold run A against B and A against C of the same samples)."""
    return f"inspect:{task}/{sample_id}/{epoch}/{eval_a}/{eval_b}"


class InspectRuns(Shape):
    name = "inspect"
    title = "two Inspect AI eval logs of one task (.eval or .json)"
    # The built-in rubric of two runs of an agent (prompts/trajectory.toml). The logs carry
    # no verdicts, so it names what a verdict on these pairs would be on.
    rubric = "trajectory"
    batch = BATCH

    def claims(self, fields: Mapping[str, object]) -> bool:
        return False  # never a data file's records: only two logs make one

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        return Columns.of({})  # a record is the service's, not a file's columns

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        a, b = _run(fields["a"]), _run(fields["b"])
        side_a, side_b = _side(where, a), _side(where, b)
        tools = _tools(where, a, b)
        try:
            values: dict[str, object] = dict(pair_fields(side_a, side_b, None, tools))
        except ConversationError as exc:
            log = {"conversation_a": a["log"], "conversation_b": b["log"]}.get(exc.field)
            raise ImportDataError(f"{where}: {log or exc.field}: {exc}") from None
        task, sample_id, epoch = fields["task"], fields["id"], fields["epoch"]
        values["external_id"] = external_id(task, sample_id, epoch, a["eval_id"], b["eval_id"])
        values["model_a"], values["model_b"] = _names(a, b)
        values["category"] = task  # the list's category: its filter tells tasks apart
        if fields.get("target"):  # the sample's target: the answer a judge may compare with
            values["reference"] = fields["target"]
        metadata: dict[str, object] = {"task": task, "sample_id": sample_id, "epoch": epoch}
        for key in _PER_LOG:
            for letter, run in (("a", a), ("b", b)):
                if run.get(key) is not None:
                    metadata[f"{key}_{letter}"] = run[key]
        metadata["model_a"], metadata["model_b"] = a["model"], b["model"]
        return ShapedRecord(values, metadata)


def _run(value: object) -> Mapping[str, object]:
    """One log's part of a record, as ``services/inspect_import.py`` makes it."""
    assert isinstance(value, dict)  # (made there, never read from a file)
    return value


def _side(where: str, run: Mapping[str, object]) -> Conversation:
    try:
        return messages(run["messages"], "conversation")
    except ConversationError as exc:
        raise ImportDataError(f"{where}: {run['log']}: {exc}") from None


def _tools(where: str, a: Mapping[str, object], b: Mapping[str, object]) -> list[object] | None:
    """The tools both runs were given. A log that kept no model call says nothing of them
    (the other's stand); two that differ are not two runs of one task."""
    mine, theirs = a["tools"], b["tools"]
    if mine is None or theirs is None or mine == theirs:
        found = mine if mine is not None else theirs
        return list(found) if isinstance(found, list) and found else None
    assert isinstance(mine, list) and isinstance(theirs, list)  # (a log's tools: a list)
    by_name_a = {tool_name(t): t for t in mine}
    by_name_b = {tool_name(t): t for t in theirs}
    differs = next(
        (n for n in [*by_name_a, *by_name_b] if by_name_a.get(n) != by_name_b.get(n)), None
    )
    what = (
        "they are given in another order"
        if differs is None
        else f"tool {differs!r} is "
        + (
            f"only in {a['log']}"
            if differs not in by_name_b
            else f"only in {b['log']}"
            if differs not in by_name_a
            else "defined differently"
        )
    )
    raise ImportDataError(
        f"{where}: the two runs were given different tools ({what}); two runs of one task"
        " share their tools"
    )


def _names(a: Mapping[str, object], b: Mapping[str, object]) -> tuple[str, str]:
    """The generators' names: each log's model; where both ran the same model (two
    versions of one agent), each with its log's file name, so the two stay apart."""
    if a["model"] != b["model"]:
        return str(a["model"]), str(b["model"])
    return f"{a['model']} ({a['stem']})", f"{b['model']} ({b['stem']})"


INSPECT_RUNS = InspectRuns()
