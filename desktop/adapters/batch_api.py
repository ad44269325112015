"""OpenAI's Batch API on a server: upload a batch input file, start the batch, wait for it,
download what it wrote. Anything the server says on the way is shown with the key hidden
and its control characters escaped.

A batch's output is large by nature (a line per request), so it is streamed to disk, not
held, and capped at :data:`BYTES_PER_REQUEST` for each request submitted, decoded: a
judge's line is a few KB, so no real batch comes near it, and a server that sends a
gzip bomb or an endless body is stopped there. Every other reply is capped as a judge's
answer is (``reply_cap``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import openai

from desktop.adapters.keys import key_masker
from desktop.adapters.model_client import MESSAGE_CUT
from desktop.adapters.reply_cap import (
    REPLY_CAP,
    ReplyTooLarge,
    http_client,
    size_text,
    too_large,
)
from desktop.domain.base_urls import basic_auth, split_password, without_userinfo
from desktop.domain.errors import TiebreakError
from desktop.domain.shown_text import shown

FINISHED = ("completed", "failed", "expired", "cancelled")
BYTES_PER_REQUEST = 1 << 20  # of a batch's output and error files together, decoded


class BatchAPI:
    def __init__(
        self, base_url: str, api_key: str | None, *, timeout: float, password: str | None = None
    ) -> None:
        """``password``: the base URL's, sent as basic auth (one written in ``base_url`` is
        taken out of it)."""
        self.base_url, written = split_password(base_url)  # what messages show
        self.password = password if password is not None else written
        self.api_key, self.timeout = api_key, timeout
        self._mask = key_masker([api_key, self.password])
        self._client = self._openai(REPLY_CAP)

    def _openai(self, cap: int) -> openai.OpenAI:
        auth = basic_auth(self.base_url, self.password)
        return openai.OpenAI(
            base_url=without_userinfo(self.base_url) if auth else self.base_url,
            api_key=self.api_key or "no-key",
            timeout=self.timeout,
            http_client=http_client(cap, basic_auth=auth),
        )

    def _said(self, text: object) -> str:
        """The server's text as a message may hold it: keys hidden, controls escaped."""
        return shown(self._mask(str(text)))

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
                # openai's types list its own release's endpoints as a Literal; ours is
                # one of them ("/v1/chat/completions" or "/v1/completions") as a str.
                endpoint=endpoint,  # type: ignore[arg-type]
                completion_window="24h",
            )
            name = self._said(batch.id)
            log(f"batch {name}: {count:,} requests submitted")
            while batch.status not in FINISHED:
                time.sleep(poll_seconds)
                batch = client.batches.retrieve(batch.id)
                counts = batch.request_counts
                done = f" ({counts.completed:,}/{counts.total:,})" if counts else ""
                log(f"batch {name}: {self._said(batch.status)}{done}")
            if not batch.output_file_id and not batch.error_file_id:
                raise TiebreakError(f"batch {name} ended {self._said(batch.status)} with no output")
            files = [f for f in (batch.output_file_id, batch.error_file_id) if f]
            cap = max(REPLY_CAP, count * BYTES_PER_REQUEST)
            with results.open("wb") as out:
                try:
                    self._download(files, out, cap)
                except ReplyTooLarge:
                    raise TiebreakError(
                        f"batch {name} at {self.base_url}: its output is larger than"
                        f" {size_text(cap)} once decoded, the most {count:,} requests may"
                        " write (a judge's line is a few KB); not read further, nothing stored"
                    ) from None
        except (ReplyTooLarge, openai.APIError) as exc:  # a server may echo the key
            hit = too_large(exc)
            said = (
                f"a reply is larger than {size_text(hit.cap)} once decoded; not read further"
                if hit is not None
                else self._said(exc)[:MESSAGE_CUT]
            )
            raise TiebreakError(f"batch at {self.base_url}: {said}") from None

    def _download(self, file_ids: list[str], out: BinaryIO, cap: int) -> None:
        """The files, one after the other, each ending in a newline, streamed to ``out``;
        ReplyTooLarge once they come to more than ``cap`` bytes, decoded."""
        client, written = self._openai(cap), 0
        try:
            for file_id in file_ids:
                with client.files.with_streaming_response.content(file_id) as response:
                    last = b"\n"
                    for chunk in response.iter_bytes():
                        written += len(chunk)
                        if written > cap:
                            raise ReplyTooLarge(cap)
                        out.write(chunk)
                        last = chunk[-1:] or last
                if last != b"\n":
                    out.write(b"\n")
        finally:
            client.close()
