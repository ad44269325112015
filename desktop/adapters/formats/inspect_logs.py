"""Inspect AI eval logs (``.eval`` and ``.json``), read with the ``inspect_ai`` package's
own reader (``inspect_ai.log.read_eval_log``), never parsed by hand: its log format
changes between releases and only its reader knows every one of them.

A log is read into plain data (``RunLog``, ``LogSample``) so that nothing above the
adapters sees an Inspect object: each sample's messages as Inspect dumps them
(``model_dump(mode="json", exclude_none=True)``: ``tool_calls`` with ``id``, ``function``
and ``arguments``, ``tool`` messages with ``tool_call_id``, ``function`` and ``error``),
without the message's own ``id``, a random name Inspect gives each message of each run
(two runs of one task would otherwise never share their task's messages); the tools its
agent was given (each model call's ``tools``, as ``ToolInfo`` dumps); the scores the log
gave it, and its target. ``inspect_ai`` is an optional extra (``tiebreak[inspect]``),
imported only here and only when a log is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.adapters.file_kinds import refuse_special
from desktop.domain.errors import ImportDataError

if TYPE_CHECKING:  # an optional extra: imported only where a log is read
    from inspect_ai.log import EvalSample

#: What to install where ``inspect_ai`` is missing.
INSTALL = "pip install 'tiebreak[inspect]', or in Tiebreak's folder pip install -e '.[inspect]'"
LOG_SUFFIXES = (".eval", ".json")


# How Inspect begins a JSON log (``EvalLog.model_dump_json``): its version, status, eval.
_JSON_HEAD = re.compile(
    rb'\A\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"\w+"\s*,\s*"eval"\s*:'
)


def is_inspect_log(path: Path) -> bool:
    """Whether a file named for a data import is an Inspect AI log (an ``.eval`` file, or
    JSON that begins as Inspect writes its logs), so the user can be pointed at the import
    of two runs instead of a data file's error."""
    suffix = path.suffix.lower()
    if suffix == ".eval":
        return True
    if suffix != ".json":
        return False
    try:
        with path.open("rb") as file:
            return _JSON_HEAD.match(file.read(512)) is not None
    except OSError:
        return False


@dataclass(frozen=True)
class LogSample:
    id: str | int
    epoch: int
    messages: list[dict[str, object]]  # Inspect's message dumps, in order, without message ids
    tools: list[dict[str, object]] | None  # ToolInfo dumps; None: the log holds no model call
    scores: dict[str, dict[str, object]]  # scorer name -> value, answer, explanation, metadata
    error: str | None = None  # the sample's error, where it failed
    target: str | None = None  # what the scorer was to find (a list's items a line each)


@dataclass(frozen=True)
class RunLog:
    path: Path
    task: str
    task_id: str
    eval_id: str
    run_id: str
    model: str
    status: str  # success, error, cancelled, started
    samples: list[LogSample] = field(default_factory=list)


def require_file(path: Path) -> None:
    """One line where ``path`` names no file (nothing, a folder, a pipe): asked of both
    logs before either is read, since loading the reader takes seconds."""
    if not path.is_file():
        refuse_special(path, expected="an Inspect AI log", error=ImportDataError)
        raise ImportDataError(f"{path}: no such file")


def read_run(path: Path) -> RunLog:
    """The log at ``path``, every sample in it; one line where it cannot be read."""
    require_file(path)
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ImportDataError(
            f"{path}: reading Inspect AI logs needs the inspect_ai package ({INSTALL})"
        ) from None
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # its reader's errors are of many kinds: zip, JSON, pydantic
        raise ImportDataError(
            f"{path}: not an Inspect AI log that can be read ({_reason(exc)})"
        ) from None
    if not log.samples:
        raise ImportDataError(f"{path}: the Inspect AI log holds no samples (status {log.status})")
    return RunLog(
        path,
        log.eval.task,
        log.eval.task_id,
        log.eval.eval_id,
        log.eval.run_id,
        log.eval.model,
        str(log.status),
        [_sample(s) for s in log.samples],
    )


def _reason(exc: Exception) -> str:
    text = _one_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _one_line(text: str, most: int = 160) -> str:
    """An error's text for a report's line: its whitespace one space, clipped."""
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 3] + "..."


def _sample(sample: EvalSample) -> LogSample:
    messages = []
    for message in sample.messages:
        dumped = message.model_dump(mode="json", exclude_none=True)
        dumped.pop("id", None)
        messages.append(dumped)
    scores = {
        name: score.model_dump(
            mode="json", exclude_none=True, include={"value", "answer", "explanation", "metadata"}
        )
        for name, score in (sample.scores or {}).items()
    }
    error = _one_line(sample.error.message) if sample.error is not None else None
    target = sample.target if isinstance(sample.target, str) else "\n".join(sample.target)
    return LogSample(
        sample.id, sample.epoch, messages, _tools(sample), scores, error, target or None
    )


def _tools(sample: EvalSample) -> list[dict[str, object]] | None:
    """Every tool any model call of the sample was given, each once (by name, its first
    definition), in the order they were first given; None where the log kept no model
    call (a log written without events)."""
    from inspect_ai.event import ModelEvent

    found: dict[str, dict[str, object]] = {}
    called = False
    for event in sample.events or ():
        if not isinstance(event, ModelEvent):
            continue
        called = True
        for info in event.tools or ():
            found.setdefault(info.name, info.model_dump(mode="json", exclude_none=True))
    return list(found.values()) if called else None
