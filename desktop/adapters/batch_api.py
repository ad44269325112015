"""OpenAI's Batch API on a server: upload a batch input file, start the batch, wait for it,
download what it wrote. Anything the server says on the way is shown with the key hidden."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import openai

from desktop.adapters.keys import key_masker
from desktop.domain.errors import TiebreakError

FINISHED = ("completed", "failed", "expired", "cancelled")


class BatchAPI:
    def __init__(self, base_url: str, api_key: str | None, *, timeout: float) -> None:
        self.base_url, self.api_key = base_url, api_key
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "no-key", timeout=timeout
        )

    def run(
        self,
        requests: Path,
        endpoint: str,
        results: Path,
        *,
        count: int,
        poll_seconds: float,
        log: Callable[[str], None],
    ) -> None:
        """Submit ``requests`` (``count`` lines, each a request to ``endpoint``), check on the batch
        every ``poll_seconds`` until it ends, and write its output and error lines to
        ``results``."""
        client = self._client
        try:
            with requests.open("rb") as fh:
                uploaded = client.files.create(file=fh, purpose="batch")
            batch = client.batches.create(
                input_file_id=uploaded.id,
                endpoint=endpoint,  # type: ignore[arg-type]
                completion_window="24h",
            )
            log(f"batch {batch.id}: {count:,} requests submitted")
            while batch.status not in FINISHED:
                time.sleep(poll_seconds)
                batch = client.batches.retrieve(batch.id)
                counts = batch.request_counts
                done = f" ({counts.completed:,}/{counts.total:,})" if counts else ""
                log(f"batch {batch.id}: {batch.status}{done}")
            if not batch.output_file_id and not batch.error_file_id:
                raise TiebreakError(f"batch {batch.id} ended {batch.status} with no output")
            with results.open("w", encoding="utf-8") as out:
                for file_id in (batch.output_file_id, batch.error_file_id):
                    if file_id:
                        out.write(client.files.content(file_id).text.rstrip("\n") + "\n")
        except openai.APIError as exc:
            hidden = key_masker([self.api_key])(str(exc))  # a server may echo the key
            raise TiebreakError(f"batch at {self.base_url}: {hidden}") from None
