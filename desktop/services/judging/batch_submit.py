"""`tiebreak batch submit`: upload a batch input file, wait for the batch, store results."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import openai

from desktop.adapters.keys import key_masker
from desktop.domain.errors import TiebreakError
from desktop.services.judging.batch import BatchImport, export_batch, import_batch
from desktop.services.judging.job import JudgeJob

FINISHED = ("completed", "failed", "expired", "cancelled")


def submit_batch(
    job: JudgeJob, *, poll_seconds: float = 30.0, log: Callable[[str], None] = lambda _: None
) -> BatchImport:
    client = openai.OpenAI(
        base_url=job.base_url, api_key=job.api_key or "no-key", timeout=job.profile.timeout
    )
    with tempfile.TemporaryDirectory(prefix="tiebreak-batch-") as folder:
        request_file = Path(folder) / "requests.jsonl"
        exported = export_batch(job, request_file)
        if exported.requests == 0:
            return BatchImport(0, 0, 0, 0)
        try:
            with request_file.open("rb") as fh:
                uploaded = client.files.create(file=fh, purpose="batch")
            batch = client.batches.create(
                input_file_id=uploaded.id,
                endpoint=exported.endpoint,  # type: ignore[arg-type]
                completion_window="24h",
            )
            log(f"batch {batch.id}: {exported.requests:,} requests submitted")
            while batch.status not in FINISHED:
                time.sleep(poll_seconds)
                batch = client.batches.retrieve(batch.id)
                counts = batch.request_counts
                done = f" ({counts.completed:,}/{counts.total:,})" if counts else ""
                log(f"batch {batch.id}: {batch.status}{done}")
            if not batch.output_file_id and not batch.error_file_id:
                raise TiebreakError(f"batch {batch.id} ended {batch.status} with no output")
            results = Path(folder) / "results.jsonl"
            with results.open("w", encoding="utf-8") as out:
                for file_id in (batch.output_file_id, batch.error_file_id):
                    if file_id:
                        out.write(client.files.content(file_id).text.rstrip("\n") + "\n")
        except openai.APIError as exc:
            hidden = key_masker([job.api_key])(str(exc))  # a server may echo the key
            raise TiebreakError(f"batch at {job.base_url}: {hidden}") from None
        return import_batch(job.store, results)
