"""`tiebreak batch submit`: upload a batch input file, wait for the batch, store results."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from desktop.adapters.batch_api import BatchAPI
from desktop.services.judging.batch import BatchImport, export_batch, import_batch
from desktop.services.judging.job import JudgeJob


def submit_batch(
    job: JudgeJob, *, poll_seconds: float = 30.0, log: Callable[[str], None] = lambda _: None
) -> BatchImport:
    api = BatchAPI(job.base_url, job.api_key, timeout=job.profile.timeout, password=job.password)
    with tempfile.TemporaryDirectory(prefix="tiebreak-batch-") as folder:
        request_file = Path(folder) / "requests.jsonl"
        exported = export_batch(job, request_file)
        if exported.requests == 0:
            return BatchImport(0, 0, 0, 0)
        results = Path(folder) / "results.jsonl"
        api.run(
            request_file,
            exported.endpoint,
            results,
            count=exported.requests,
            poll_seconds=poll_seconds,
            log=log,
        )
        return import_batch(job.store, results)
