"""Judging beyond one machine: batch input files out (OpenAI's, which vLLM's ``run-batch``
reads too, or Anthropic's Message Batches), their results files back in.

Each line's ``custom_id`` is ``tb:<job tag>:<pair id>:<order>`` (``tb_..._...`` for
Anthropic, whose ids allow no colon); the tag names a manifest kept in the project (rubric
hash, model, settings), so a results file of any of these services, or of a job of one's
own (examples/ray_batch.py), is stored under exactly the key a live run would use.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.adapters.batch_lines import (
    ANTHROPIC,
    LIMITS,
    OPENAI,
    Outcome,
    anthropic_params,
    custom_id,
    outcome,
    parse_line,
    request_line,
)
from desktop.adapters.file_kinds import refuse_special
from desktop.adapters.formats.atomic import atomic_text_file, check_target
from desktop.adapters.keys import key_masker
from desktop.adapters.rubric_files import rubric_from_text
from desktop.adapters.store.pairs import pair_ids, row_number
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import ResultRow, insert_results, result_row
from desktop.adapters.store.rubrics import rubric_text
from desktop.domain.errors import ImportDataError, TiebreakError
from desktop.domain.results import JudgeResult, Order, Status
from desktop.domain.rubric import Rubric
from desktop.domain.shown_text import shown
from desktop.services.judging.applies import refuse_missing_fields
from desktop.services.judging.interpret import interpret
from desktop.services.judging.job import JudgeJob
from desktop.services.project_rubrics import add_rubric

MANIFEST_PREFIX = "batch:"


@dataclass(frozen=True)
class BatchExport:
    requests: int
    skipped: int
    tag: str
    endpoint: str
    shape: str = OPENAI
    size: int = 0  # bytes written

    def too_large(self) -> str | None:
        """Where the file holds more than its service takes in one batch: how to cut it."""
        service, most, most_bytes = LIMITS[self.shape]
        if self.requests <= most and self.size <= most_bytes:
            return None
        mb = 1024 * 1024
        return (
            f"{service} at most {most:,} requests and {most_bytes // mb} MB a batch;"
            f" this file holds {self.requests:,} requests, {-(-self.size // mb):,} MB"
            " (--where 'id <= N' exports a part; once its results are imported, the next"
            " export asks for the rest)"
        )


@dataclass(frozen=True)
class BatchImport:
    stored: int
    ok: int
    parse_failures: int
    errors: int
    expired: int = 0
    canceled: int = 0
    # Requests of the batches named in the file that it holds no line for (a batch cut
    # short, a file of one part): the next export asks for them.
    absent: int = 0

    @property
    def unanswered(self) -> int:
        return self.expired + self.canceled + self.absent


def job_tag(job: JudgeJob) -> str:
    raw = f"{job.key.rubric_hash}|{job.key.judge_model}|{job.key.settings_hash}"
    return hashlib.sha256(raw.encode()).hexdigest()[:12]


def export_batch(job: JudgeJob, out: Path, *, shape: str = OPENAI) -> BatchExport:
    """Write every pending request of a job as one batch input file: OpenAI's (which vLLM's
    ``run-batch`` reads too) or Anthropic's."""
    store = job.store
    check_target(out, keep=store.path)  # before the manifest is stored in the project
    refuse_missing_fields(store, job.rubric, job.options)
    tasks, skipped = job.plan()
    tag = job_tag(job)
    endpoint = "/v1/chat/completions" if job.profile.api_mode == "chat" else "/v1/completions"
    if shape == ANTHROPIC:
        endpoint = "/v1/messages"
        if tasks:  # refused before anything is stored or written
            anthropic_params(job.request_for(*tasks[0]).body())
    add_rubric(store, job.rubric)
    manifest = {
        "rubric_hash": job.key.rubric_hash,
        "rubric_name": job.rubric.name,
        "judge_model": job.key.judge_model,
        "settings_hash": job.key.settings_hash,
        "api_mode": job.profile.api_mode,
        "requests": len(tasks),
    }
    store.set_setting(MANIFEST_PREFIX + tag, json.dumps(manifest))
    with atomic_text_file(out, keep=store.path) as fh:
        for pair_id, order in tasks:
            body = job.request_for(pair_id, order).body()
            made_id = custom_id(shape, tag, pair_id, order.value)
            line = request_line(shape, made_id, endpoint, body)
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    return BatchExport(len(tasks), skipped, tag, endpoint, shape, out.stat().st_size)


def import_batch(store: ProjectStore, path: Path) -> BatchImport:
    """Store a batch output file as results: all lines or none. A request that was never
    run (expired, canceled, or not in the file) stores nothing, so the next export asks
    for it."""
    rows: list[ResultRow] = []
    wheres: list[str] = []  # each row's line, for a message
    counts = {Status.OK: 0, Status.PARSE_FAILURE: 0, Status.ERROR: 0}
    unanswered = {"expired": 0, "canceled": 0}
    manifests: dict[str, tuple[dict[str, Any], Rubric]] = {}
    seen: dict[str, set[tuple[int, Order]]] = {}
    mask = key_masker()  # a server's text: it may echo a key
    refuse_special(path, expected="a batch output file", error=ImportDataError)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportDataError(f"{path}: cannot be read ({exc})") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        made_id, item = parse_line(line, where)
        tag, pair_id, order = _parse_custom_id(made_id, where)
        if tag not in manifests:
            manifests[tag] = _manifest(store, tag, where)
        manifest, rubric = manifests[tag]
        said = outcome(made_id, item, manifest.get("api_mode", "chat"), where)
        seen.setdefault(tag, set()).add((pair_id, order))
        if said.unanswered:
            unanswered[said.unanswered] += 1
            continue
        result = _without_keys(_result(said, manifest, rubric, pair_id, order), mask)
        counts[result.status] += 1
        rows.append(result_row(result))
        wheres.append(where)
    with store.transaction():
        known = pair_ids(store)
        missing = [
            (w, r.pair_id) for w, r in zip(wheres, rows, strict=True) if r.pair_id not in known
        ]
        if missing:
            where, pair_id = missing[0]
            raise ImportDataError(f"{where}: pair #{pair_id} is not in {store.path}")
        insert_results(store.conn, rows)
    absent = sum(
        max(0, int(manifests[tag][0].get("requests", 0)) - len(ids)) for tag, ids in seen.items()
    )
    return BatchImport(
        len(rows),
        counts[Status.OK],
        counts[Status.PARSE_FAILURE],
        counts[Status.ERROR],
        unanswered["expired"],
        unanswered["canceled"],
        absent,
    )


def _without_keys(result: JudgeResult, mask: Callable[[str], str]) -> JudgeResult:
    """The result with keys hidden; its error (a server's message, shown later) one line
    of characters, its answer kept as it came."""
    return dataclasses.replace(
        result,
        error=result.error and shown(mask(result.error)),
        raw_completion=result.raw_completion and mask(result.raw_completion),
    )


def _parse_custom_id(custom_id: str, where: str) -> tuple[str, int, Order]:
    parts = custom_id.split("_" if custom_id.startswith("tb_") else ":")
    pair_id = row_number(parts[2]) if len(parts) == 4 else None
    if len(parts) != 4 or parts[0] != "tb" or pair_id is None or parts[3] not in ("AB", "BA"):
        raise ImportDataError(
            f"{where}: custom_id {custom_id!r} was not written by tiebreak batch export"
        )
    return parts[1], pair_id, Order(parts[3])


def _manifest(store: ProjectStore, tag: str, where: str) -> tuple[dict[str, Any], Rubric]:
    raw = store.get_setting(MANIFEST_PREFIX + tag)
    if raw is None:
        raise ImportDataError(f"{where}: batch {tag} was exported from another project")
    manifest = json.loads(raw)
    text = rubric_text(store, manifest["rubric_hash"])
    if text is None:
        raise TiebreakError(f"{store.path}: the rubric of batch {tag} is missing")
    return manifest, rubric_from_text(text, origin=f"{store.path} rubric {manifest['rubric_name']}")


def _result(
    said: Outcome, manifest: dict[str, Any], rubric: Rubric, pair_id: int, order: Order
) -> JudgeResult:
    base = {
        "pair_id": pair_id,
        "rubric_hash": manifest["rubric_hash"],
        "rubric_name": manifest["rubric_name"],
        "judge_model": manifest["judge_model"],
        "settings_hash": manifest["settings_hash"],
        "order": order,
        "origin": "batch",
    }
    completion = said.completion
    if completion is None:
        return JudgeResult(status=Status.ERROR, error=f"batch: {said.error}", **base)
    read = interpret(rubric, order, completion)
    return JudgeResult(
        status=read.status,
        verdicts=read.verdicts,
        confidence=read.confidence,
        preference=read.preference,
        raw_completion=completion.text,
        error=read.error,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        **base,
    )
