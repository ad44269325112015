"""Import two Inspect AI eval logs of one task (two models, or two versions of an agent) as
pairs of trajectories: the samples matched by sample id and epoch, each pair one sample's
two runs (``domain/import_shapes/inspect_runs.py``).

Both logs are read whole before anything is written (``adapters/formats/inspect_logs.py``),
then the pairs go in as a data file's do (``importing.import_records``): one transaction,
so a sample that cannot be a pair (its task or system message differs between the logs,
its tools differ, a tool result answers no call) stops the import in one line naming the
sample, leaving the project as it was; a re-import adds nothing. A sample only one log
holds (a run cut short, a ``--limit``) is no error: it is counted and named in the report.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from desktop.adapters.formats.inspect_logs import LogSample, RunLog, read_run, require_file
from desktop.adapters.formats.readers import Record
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.inspect_runs import INSPECT_RUNS
from desktop.services.importing import ImportReport, Progress, import_records


@dataclass(frozen=True)
class RunsReport:
    imported: ImportReport
    log_a: Path
    log_b: Path
    only_a: tuple[str, ...]  # the samples only log A holds, as "'id' epoch n"
    only_b: tuple[str, ...]
    #: samples both hold but one run never answered (it failed before its first model
    #: call's reply): no trajectory to compare, left out and named
    unanswered: tuple[str, ...] = ()
    matched: int = 0  # samples both logs hold, answered or not

    @property
    def added(self) -> int:
        return self.imported.added

    @property
    def present(self) -> int:
        return self.imported.present

    def summary(self) -> str:
        """One line: the pairs stored, then the samples left out for want of a partner."""
        both = max(self.matched, self.imported.records)
        line = f"{both:,} sample{'s' if both != 1 else ''} in both logs: {self.imported.summary()}"
        for log, only in ((self.log_a, self.only_a), (self.log_b, self.only_b)):
            if only:
                line += (
                    f"; {len(only):,} sample{'s' if len(only) != 1 else ''} only in"
                    f" {log.name} ({only[0]}{', ...' if len(only) > 1 else ''})"
                )
        if self.unanswered:
            n = len(self.unanswered)
            line += (
                f"; {n:,} sample{'s' if n != 1 else ''} left out, a run with no answer"
                f" ({self.unanswered[0]}{', ...' if n > 1 else ''})"
            )
        return line


def import_runs(
    store: ProjectStore,
    log_a: str | Path,
    log_b: str | Path,
    *,
    progress: Progress | None = None,
) -> RunsReport:
    """Pairs of ``log_a``'s runs (side A) and ``log_b``'s (side B) of each sample both
    hold; see the module's docstring."""
    path_a, path_b = Path(log_a), Path(log_b)
    require_file(path_a)
    require_file(path_b)
    run_a, run_b = read_run(path_a), read_run(path_b)
    if run_a.eval_id == run_b.eval_id:
        raise ImportDataError(
            f"{path_b}: the same eval as {path_a} (eval id {run_a.eval_id}); compare two runs"
        )
    if run_a.task != run_b.task:
        raise ImportDataError(
            f"{path_b}: a log of task {run_b.task!r}, but {path_a} is of task {run_a.task!r};"
            " the pairs are two runs of one task"
        )
    theirs = {(s.id, s.epoch): s for s in run_b.samples}
    mine = {(s.id, s.epoch) for s in run_a.samples}
    matched = [(s, theirs[(s.id, s.epoch)]) for s in run_a.samples if (s.id, s.epoch) in theirs]
    both = [(a, b) for a, b in matched if _answered(a) and _answered(b)]
    unanswered = tuple(
        f"{_named(a)}, {path.name}{f': {s.error}' if s.error else ''}"
        for a, b in matched
        for s, path in ((a, path_a), (b, path_b))
        if not _answered(s)
    )
    only_a = tuple(_named(s) for s in run_a.samples if (s.id, s.epoch) not in theirs)
    only_b = tuple(_named(s) for s in run_b.samples if (s.id, s.epoch) not in mine)
    if not matched:
        raise ImportDataError(
            f"{path_a} and {path_b}: no sample is in both logs (samples are matched by id and"
            " epoch)"
        )
    if not both:
        raise ImportDataError(
            f"{path_a} and {path_b}: no sample that both logs hold has an answer in both"
            f" ({unanswered[0]})"
        )
    imported = import_records(
        store, path_b, INSPECT_RUNS, _records(run_a, run_b, both), progress=progress
    )
    return RunsReport(imported, path_a, path_b, only_a, only_b, unanswered, len(matched))


def _answered(sample: LogSample) -> bool:
    return any(m.get("role") == "assistant" for m in sample.messages)


def _named(sample: LogSample) -> str:
    return f"{sample.id!r} epoch {sample.epoch}"


def _records(
    run_a: RunLog, run_b: RunLog, both: list[tuple[LogSample, LogSample]]
) -> Iterator[Record]:
    for a, b in both:
        where = f"{run_a.path.name} and {run_b.path.name}, sample {_named(a)}"
        yield (
            where,
            {
                "task": run_a.task,
                "id": a.id,
                "epoch": a.epoch,
                "target": a.target,
                "a": _run(run_a, a),
                "b": _run(run_b, b),
            },
        )


def _run(run: RunLog, sample: LogSample) -> dict[str, object]:
    return {
        "log": run.path.name,
        "stem": run.path.stem,
        "eval_id": run.eval_id,
        "run_id": run.run_id,
        "task_id": run.task_id,
        "model": run.model,
        "messages": sample.messages,
        "tools": sample.tools,
        "scores": sample.scores,
        "error": sample.error,
    }
