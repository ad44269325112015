"""The HTTP clients the openai package sends through: a reply is read up to a size, decoded.

httpx inflates a gzip or deflate body (br and zstd too, where their packages are
installed) as it reads it, and keeps the whole of it: a hostile server's kilobyte of gzip
becomes a gigabyte in memory. So every reply is decoded here, as it arrives, and reading
stops at a cap with :class:`ReplyTooLarge`; httpx is handed the decoded bytes. The cap is
counted after decoding, so it bounds memory whatever the encoding, the framing (a
Content-Length or chunks without one) or the compression.

A judge's answer is a few kilobytes: :data:`REPLY_CAP` is far above the longest any server
gives (128k tokens, with five alternatives for every token, is under 40 MB of JSON). Batch
output files are larger by nature and are streamed to disk with a cap of their own
(``batch_api``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import openai

try:  # the openai package's HTTP stack: httpx2 in openai 3.x, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

REPLY_CAP = 64 << 20  # bytes of one reply, decoded


def size_text(size: int) -> str:
    """A byte count as people read it: 64 MiB, 1.5 GiB."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.3g} {unit}"
    return f"{size} bytes"


class ReplyTooLarge(Exception):
    """A reply that, decoded, is longer than the cap; nothing past the cap was read."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"larger than {size_text(cap)} once decoded")
        self.cap = cap


def _shell(response: httpx.Response) -> httpx.Response:
    """A response that owns ``response``'s raw body and headers, to decode through httpx's
    own decoders; ``response`` itself is then handed the decoded bytes, as identity."""
    shell = httpx.Response(response.status_code, headers=response.headers, stream=response.stream)
    if "content-encoding" in response.headers:  # the shell holds its own copy
        del response.headers["content-encoding"]
    return shell


class _CappedStream(httpx.SyncByteStream):
    def __init__(self, shell: httpx.Response, cap: int) -> None:
        self.shell, self.cap = shell, cap

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        for chunk in self.shell.iter_bytes():
            seen += len(chunk)
            if seen > self.cap:
                raise ReplyTooLarge(self.cap)
            yield chunk

    def close(self) -> None:
        self.shell.close()


class _CappedAsyncStream(httpx.AsyncByteStream):
    def __init__(self, shell: httpx.Response, cap: int) -> None:
        self.shell, self.cap = shell, cap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self.shell.aiter_bytes():
            seen += len(chunk)
            if seen > self.cap:
                raise ReplyTooLarge(self.cap)
            yield chunk

    async def aclose(self) -> None:
        await self.shell.aclose()


def _auth(basic_auth: tuple[str, str] | None) -> httpx.BasicAuth | None:
    return httpx.BasicAuth(*basic_auth) if basic_auth else None


def http_client(
    cap: int = REPLY_CAP, *, basic_auth: tuple[str, str] | None = None
) -> openai.DefaultHttpxClient:
    """The openai package's own default client (its limits, proxies, redirects), with every
    reply capped at ``cap`` bytes decoded and, where given, a (user, password) sent as HTTP
    basic auth."""

    def cap_reply(response: httpx.Response) -> None:
        response.stream = _CappedStream(_shell(response), cap)

    return openai.DefaultHttpxClient(auth=_auth(basic_auth), event_hooks={"response": [cap_reply]})


def async_http_client(
    cap: int = REPLY_CAP, *, basic_auth: tuple[str, str] | None = None
) -> openai.DefaultAsyncHttpxClient:
    """:func:`http_client` for the asyncio client."""

    async def cap_reply(response: httpx.Response) -> None:
        response.stream = _CappedAsyncStream(_shell(response), cap)

    return openai.DefaultAsyncHttpxClient(
        auth=_auth(basic_auth), event_hooks={"response": [cap_reply]}
    )


def too_large(exc: BaseException) -> ReplyTooLarge | None:
    """The cap that ``exc`` (or what caused it: openai wraps what httpx raises) ran into."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ReplyTooLarge):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None
