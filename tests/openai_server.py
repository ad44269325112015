"""A scriptable OpenAI-compatible HTTP server for Tiebreak's tests and benchmarks.

Why our own server instead of a mock transport or a web framework:

* The judge client talks to *any* OpenAI-compatible endpoint through the official ``openai``
  package, so the only faithful test double is a real socket speaking HTTP/1.1. Mocking the
  transport would skip the retry, timeout, keep-alive and error-mapping code we most need to
  exercise.
* Faults that matter in production (a 429 with ``Retry-After``, a hung request, a server that
  drips one byte at a time, a connection closed halfway through the headers, a 200 whose body
  is not JSON) cannot be produced by a well-behaved framework; here each is a few lines.
* Benchmarks need thousands of requests per second with realistic latency. One asyncio loop
  with keep-alive connections does that without a thread per request and without a
  third-party dependency (the module is stdlib-only, so it also runs as a plain script).

Typical use::

    from tests.openai_server import OpenAIServer, Reply

    with OpenAIServer() as server:
        server.script(["B", Reply.rate_limit(retry_after=1), Reply.hang()])
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
        ...
        assert server.requests[0].headers["authorization"] == "Bearer sk-test"

Benchmarks run it in a child process so it does not compete for the client's GIL::

    python tests/openai_server.py --port 0 --delay-ms 100 --answer A
    # prints "READY http://127.0.0.1:PORT/v1" and serves until killed

Only ever binds 127.0.0.1: it is a test double with no authentication.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import email.parser
import email.policy
import enum
import functools
import inspect
import itertools
import json
import re
import signal
import sys
import threading
import time
import zlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, TypeAlias

__all__ = [
    "GENERATION_PATHS",
    "Fault",
    "FaultRule",
    "OpenAIServer",
    "RecordedRequest",
    "Reply",
    "Responder",
    "TokenLogprob",
    "main",
]

HOST = "127.0.0.1"
CHAT_PATH = "/v1/chat/completions"
COMPLETIONS_PATH = "/v1/completions"
MODELS_PATH = "/v1/models"
GENERATION_PATHS: tuple[str, ...] = (CHAT_PATH, COMPLETIONS_PATH)
# OpenAI's Batch API: upload a file, start a batch, check on it, download its output. A
# FaultRule on FILE_CONTENT_PATH answers every download (/v1/files/ID/content) instead.
FILES_PATH = "/v1/files"
BATCHES_PATH = "/v1/batches"
FILE_CONTENT_PATH = "/v1/files/*/content"

#: Longest request head (request line + headers) we accept; far above anything a client sends.
MAX_HEAD_BYTES = 1 << 20
#: Longest request body we accept; judge prompts are large but never this large.
MAX_BODY_BYTES = 64 << 20
#: OpenAI's own limits, enforced so a client bug shows up here rather than in production.
MAX_CHAT_TOP_LOGPROBS = 20
MAX_COMPLETION_LOGPROBS = 5

#: Content codings a :attr:`Fault.BOMB` body can be sent in, and what makes each: br and zstd
#: only where their packages are installed (and httpx decodes them only then too).
ENCODERS: dict[str, str] = {
    "gzip": "zlib",
    "deflate": "zlib",
    "br": "the brotli package",
    "zstd": "compression.zstd (Python 3.14) or the backports.zstd package",
}
_BOMB_PIECE = 1 << 20  # bytes a bomb is made and written in

# A crude BPE-like split: words with their leading space, punctuation runs, whitespace runs.
# Every character falls in exactly one class, so the tokens always join back to the content.
_TOKEN_RE = re.compile(r" ?\w+| ?[^\w\s]+|\s+")
# Alternatives offered in synthesised top_logprobs; verdict letters first because that is
# what a judge reads.
_ALTERNATIVES = ("A", "B", "tie", "C", " A", " B", "1", "2")


class Fault(enum.StrEnum):
    """Misbehaviours a reply can inject instead of (or while) answering."""

    #: Read the request, then never answer until the client gives up (or the server stops).
    HANG = "hang"
    #: Send the headers, then one byte of the body every ``Reply.drip_interval`` seconds.
    DRIP = "drip"
    #: Close the socket without sending anything.
    DROP = "drop"
    #: Send the first half of the response head, then close the socket.
    DROP_MID_HEADERS = "drop_mid_headers"
    #: A complete 200 response whose ``application/json`` body is not JSON at all.
    GARBAGE = "garbage"
    #: A complete 200 response whose body is the first half of the real JSON.
    TRUNCATED = "truncated"
    #: A body of ``Reply.inflate_to`` bytes once decoded (a completion, or an error for a
    #: status >= 400, whose text is one letter repeated), sent with ``Reply.encoding``
    #: and made as it is sent: a gzip bomb, or a huge plain body.
    BOMB = "bomb"


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    """One generated token with its log-probability and the alternatives the model weighed.

    ``top`` is ``(token, logprob)`` pairs, most likely first; it is cut to the number the
    request asked for, so scripting more than needed is harmless.
    """

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Reply:
    """How the server answers one request; every field has a sensible "just answer" default.

    * ``content`` — the assistant message (chat) or text (completions); ``None`` means the
      server's default answer.
    * ``logprobs`` — explicit per-token logprobs, used when the request asks for logprobs.
      ``None`` synthesises them from ``content`` (the sampled token at -0.01).
    * ``top_logprobs`` — shortcut for a judge's usual need: the alternatives for the *first*
      token, e.g. ``{"A": -0.2, "B": -1.7}``; the sampled token takes its value from here.
    * ``status`` — HTTP status; >= 400 sends an OpenAI-style ``{"error": {...}}`` body built
      from ``error_message`` / ``error_type`` / ``error_code`` (defaults chosen per status).
    * ``headers`` — extra or overriding response headers.
    * ``retry_after`` — seconds for a ``Retry-After`` header (usually with status 429/503).
    * ``delay`` — seconds to sleep before answering (or before the fault); ``None`` uses the
      server's ``delay``.
    * ``fault`` — a :class:`Fault` to inject; ``drip_interval`` paces :attr:`Fault.DRIP`.
    * ``body`` — raw response body, sent verbatim with ``status`` and ``headers``.
    * ``finish_reason`` — e.g. ``"length"`` to test truncated verdicts.
    * ``encoding`` — the ``Content-Encoding`` a :attr:`Fault.BOMB` body is compressed with
      (``gzip``, ``deflate``, ``br``, ``zstd``; None sends it as is); ``inflate_to`` its
      size once decoded; ``chunked`` sends it in chunks with no ``Content-Length``.
    """

    content: str | None = None
    logprobs: Sequence[TokenLogprob] | None = None
    top_logprobs: Mapping[str, float] | None = None
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    retry_after: float | None = None
    delay: float | None = None
    fault: Fault | None = None
    drip_interval: float = 1.0
    body: bytes | None = None
    finish_reason: str = "stop"
    error_message: str | None = None
    error_type: str | None = None
    error_code: str | int | None = None
    encoding: str | None = None
    inflate_to: int = 0
    chunked: bool = False

    # Convenience constructors: they name the scenario so test code reads like the issue.

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        *,
        type: str | None = None,
        code: str | int | None = None,
        retry_after: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """An OpenAI-style error response with the given HTTP status."""
        return cls(
            status=status,
            error_message=message,
            error_type=type,
            error_code=code,
            retry_after=retry_after,
            headers=dict(headers or {}),
        )

    @classmethod
    def rate_limit(
        cls, retry_after: float | None = 1, *, insufficient_quota: bool = False
    ) -> Reply:
        """HTTP 429; ``insufficient_quota`` is the variant that retrying can never fix."""
        if insufficient_quota:
            return cls.error(
                429,
                "You exceeded your current quota, please check your plan and billing details.",
                type="insufficient_quota",
                code="insufficient_quota",
                retry_after=retry_after,
            )
        return cls.error(429, retry_after=retry_after)

    @classmethod
    def hang(cls) -> Reply:
        """Never answer; the client's timeout is what ends the request."""
        return cls(fault=Fault.HANG)

    @classmethod
    def drip(cls, interval: float = 1.0, content: str | None = None) -> Reply:
        """A valid answer delivered one body byte every ``interval`` seconds."""
        return cls(content=content, fault=Fault.DRIP, drip_interval=interval)

    @classmethod
    def drop(cls, *, mid_headers: bool = False) -> Reply:
        """Close the connection without a (complete) response."""
        return cls(fault=Fault.DROP_MID_HEADERS if mid_headers else Fault.DROP)

    @classmethod
    def garbage(cls, *, truncated: bool = False) -> Reply:
        """A 200 whose JSON body is nonsense (or cut in half)."""
        return cls(fault=Fault.TRUNCATED if truncated else Fault.GARBAGE)

    @classmethod
    def bomb(
        cls,
        size: int = 1 << 30,
        *,
        encoding: str | None = "gzip",
        chunked: bool = False,
        status: int = 200,
    ) -> Reply:
        """A reply whose body is ``size`` bytes once decoded: a gzip bomb by default (1 GiB
        from about 1 MB on the wire); ``encoding=None`` for a huge plain body. ValueError
        where this Python cannot make ``encoding`` (see :func:`can_encode`)."""
        if encoding is not None and not can_encode(encoding):
            raise ValueError(f"cannot make a {encoding!r} body here: {ENCODERS.get(encoding)}")
        return cls(
            status=status, fault=Fault.BOMB, encoding=encoding, inflate_to=size, chunked=chunked
        )

    @classmethod
    def slow(cls, delay: float, content: str | None = None) -> Reply:
        """A normal answer after ``delay`` seconds."""
        return cls(content=content, delay=delay)


#: What a responder may return: plain content, a full :class:`Reply`, or an awaitable of either.
ResponderResult: TypeAlias = "str | Reply | Awaitable[str | Reply]"
#: Called with the parsed request JSON, on the server's event loop: keep it quick.
Responder: TypeAlias = "Callable[[dict[str, Any]], ResponderResult]"


@dataclass(slots=True)
class FaultRule:
    """Inject ``reply`` into a pattern of requests, counted per rule among matching paths.

    ``first=K`` hits requests 1..K; ``every=N`` hits requests N, 2N, 3N...; both given hits
    either. Each rule counts every valid request to its ``paths`` (``seen``); when several
    rules hit the same request the one added first answers, and only its ``fired`` grows.
    ``reply`` may be a callable of the request JSON for per-request variation.
    """

    reply: Reply | Responder
    every: int | None = None
    first: int | None = None
    paths: tuple[str, ...] = GENERATION_PATHS
    seen: int = 0
    fired: int = 0

    def __post_init__(self) -> None:
        if self.every is None and self.first is None:
            raise ValueError("a FaultRule needs every=N or first=K")
        if (self.every is not None and self.every < 1) or (
            self.first is not None and self.first < 0
        ):
            raise ValueError("every must be >= 1 and first >= 0")

    def _take(self, path: str) -> bool:
        """Count one matching request; return whether this rule fires for it."""
        if path not in self.paths:
            return False
        self.seen += 1
        hit = (self.first is not None and self.seen <= self.first) or (
            self.every is not None and self.seen % self.every == 0
        )
        return hit


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """Everything the server saw of one request, so tests can assert on what was sent."""

    index: int
    method: str
    path: str
    query: str
    headers: dict[str, str]
    raw_headers: tuple[tuple[str, str], ...]
    body: bytes
    json: Any
    received_at: float
    received_monotonic: float
    connection_id: int

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages sent, or ``[]`` for other requests."""
        if isinstance(self.json, dict) and isinstance(self.json.get("messages"), list):
            return self.json["messages"]
        return []


class _BadRequest(Exception):
    """A request we refuse to parse; answered with ``status`` and the connection closed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(slots=True)
class _Request:
    method: str
    target: str
    version: str
    raw_headers: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes
    monotonic: float


# Default error bodies, modelled on what api.openai.com returns for each status.
_ERROR_DEFAULTS: dict[int, tuple[str, str, str | None]] = {
    400: ("Invalid request.", "invalid_request_error", None),
    401: (
        "Incorrect API key provided. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "invalid_request_error",
        "invalid_api_key",
    ),
    403: ("You are not allowed to access this resource.", "invalid_request_error", None),
    404: ("The requested resource does not exist.", "invalid_request_error", None),
    429: (
        "Rate limit reached for requests. Please try again later.",
        "requests",
        "rate_limit_exceeded",
    ),
    500: (
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
        None,
    ),
    503: ("The engine is currently overloaded, please try again later.", "server_error", None),
}


def _error_body(status: int, message: str | None, type_: str | None, code: Any) -> bytes:
    fallback = (
        _reason(status),
        "server_error" if status >= 500 else "invalid_request_error",
        None,
    )
    default_message, default_type, default_code = _ERROR_DEFAULTS.get(status, fallback)
    error = {
        "message": message if message is not None else default_message,
        "type": type_ if type_ is not None else default_type,
        "param": None,
        "code": code if code is not None else default_code,
    }
    return json.dumps({"error": error}, ensure_ascii=False).encode()


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:  # a made-up status a test chose on purpose
        return "Unknown"


def _zstd() -> Any:
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        from backports import zstd  # type: ignore[import-not-found,no-redef]
    return zstd


def can_encode(encoding: str) -> bool:
    """Whether a bomb can be sent in ``encoding`` by this Python."""
    if encoding in ("gzip", "deflate"):
        return True
    try:
        if encoding == "br":
            import brotli  # type: ignore[import-not-found]  # noqa: F401
        elif encoding == "zstd":
            _zstd()
        else:
            return False
    except ImportError:
        return False
    return True


def _compressor(encoding: str) -> tuple[Callable[[bytes], bytes], Callable[[], bytes]]:
    """(compress a piece, flush the rest) for a content coding."""
    if encoding in ("gzip", "deflate"):  # HTTP's deflate is zlib's format
        z = zlib.compressobj(6, zlib.DEFLATED, 31 if encoding == "gzip" else 15)
        return z.compress, z.flush
    if encoding == "br":
        import brotli  # type: ignore[import-not-found]

        b = brotli.Compressor()
        return b.process, b.finish
    z = _zstd().ZstdCompressor()
    return z.compress, lambda: z.flush(z.FLUSH_FRAME)


def encoded(data: bytes, encoding: str) -> bytes:
    """``data`` compressed with a content coding (one :func:`can_encode` allows)."""
    compress, flush = _compressor(encoding)
    return compress(data) + flush()


def _bomb_pieces(size: int, status: int) -> Iterator[bytes]:
    """A body of ``size`` bytes (or just its frame, if that is longer): a chat completion,
    or an error for ``status`` >= 400, whose text is the letter A repeated."""
    if status >= 400:
        head, tail = b'{"error": {"type": "server_error", "message": "', b'"}}'
    else:
        head = (
            b'{"id": "chatcmpl-bomb", "object": "chat.completion", "created": 0,'
            b' "model": "bomb", "choices": [{"index": 0, "finish_reason": "stop",'
            b' "message": {"role": "assistant", "content": "'
        )
        tail = b'"}}]}'
    yield head
    left, piece = size - len(head) - len(tail), b"A" * _BOMB_PIECE
    while left > 0:
        yield piece[:left]
        left -= _BOMB_PIECE
    yield tail


def _encoded(pieces: Iterable[bytes], encoding: str | None) -> Iterator[bytes]:
    if encoding is None:
        yield from pieces
        return
    compress, flush = _compressor(encoding)
    for piece in pieces:
        out = compress(piece)
        if out:
            yield out
    yield flush()


@functools.lru_cache(maxsize=4)
def _encoded_bomb(size: int, status: int, encoding: str) -> bytes:
    """A whole compressed bomb, for a Content-Length (1 GiB of gzip: about 2.5 s, once)."""
    return b"".join(_encoded(_bomb_pieces(size, status), encoding))


def _tokenize(text: str) -> list[str]:
    return _TOKEN_RE.findall(text) or ([text] if text else [])


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


class OpenAIServer:
    """An OpenAI-compatible server on 127.0.0.1, run by an asyncio loop in a daemon thread.

    Options:

    * ``port`` — 0 (default) picks a free port; read it back from :attr:`port`.
    * ``answer`` — what the default responder says (``"A"``).
    * ``responder`` — ``request_json -> str | Reply`` (may be async); replaceable at runtime.
    * ``delay`` — seconds every generation reply waits unless the reply sets its own.
    * ``reject_json_schema`` — answer ``response_format: {"type": "json_schema"}`` with
      llama.cpp's HTTP 500 instead of accepting it like OpenAI.
    * ``reject_grammar`` — answer a request with llama.cpp's ``grammar`` field with OpenAI's
      HTTP 400 instead of accepting it like llama.cpp (the answer is the script's either way).
    * ``models`` — ids listed by ``GET /v1/models``; the first is the default model name.

    It also runs OpenAI's Batch API (``/v1/files``, ``/v1/batches``): a batch is answered
    line by line as the generation endpoints would answer each request (script, rules,
    responder), is ``in_progress`` when created and ``completed`` when first checked on.

    Precedence for each generation request: a matching :class:`FaultRule`, else the next
    scripted reply, else the responder. Invalid requests (bad JSON, bad ``response_format``,
    bad ``logprobs``) get their error straight away and consume neither a scripted reply nor a
    rule's count, so a client's fallback request sees the script where the test expects it.
    """

    def __init__(
        self,
        *,
        port: int = 0,
        answer: str = "A",
        responder: Responder | None = None,
        delay: float = 0.0,
        reject_json_schema: bool = False,
        reject_grammar: bool = False,
        models: Sequence[str] = ("test-model",),
    ) -> None:
        self.answer = answer
        self.delay = delay
        self.reject_json_schema = reject_json_schema
        self.reject_grammar = reject_grammar
        self.models = list(models)
        self._requested_port = port
        self._responder: Responder | None = responder
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._queue: deque[Reply | str] = deque()
        self._rules: list[FaultRule] = []
        self._errors: list[BaseException] = []
        self._counter = itertools.count(1)
        self._connection_ids = itertools.count(1)
        self._request_added = threading.Condition(self._lock)
        self._port: int | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._ready = threading.Event()
        self._startup_error: BaseException | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._files: dict[str, bytes] = {}  # the Batch API's files, by id
        self._batches: dict[str, dict[str, Any]] = {}

    # ----------------------------------------------------------------- lifecycle

    def start(self) -> OpenAIServer:
        """Bind and start serving; returns once the port is open (or raises why it is not)."""
        if self._thread is not None:
            raise RuntimeError("server already started")
        self._thread = threading.Thread(target=self._run, name="openai-test-server", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._startup_error is not None:
            self._thread.join(1)
            raise RuntimeError("test server failed to start") from self._startup_error
        if self._port is None:
            raise RuntimeError("test server did not start within 10 s")
        return self

    def stop(self, timeout: float = 1.0) -> None:
        """Close every connection (hung ones included) and join the loop thread."""
        thread, loop, stopping = self._thread, self._loop, self._stopping
        if thread is None or loop is None or stopping is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop already ended
            loop.call_soon_threadsafe(stopping.set)
        thread.join(timeout)
        if thread.is_alive():
            raise RuntimeError(f"test server thread did not stop within {timeout} s")

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.base_url if self._port else "not started"
        return f"<OpenAIServer {where} requests={len(self._requests)}>"

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("server not started")
        return self._port

    @property
    def base_url(self) -> str:
        """What to pass as ``base_url`` to the ``openai`` client."""
        return f"http://{HOST}:{self.port}/v1"

    # ------------------------------------------------------------------ scripting

    @property
    def responder(self) -> Responder | None:
        return self._responder

    @responder.setter
    def responder(self, responder: Responder | None) -> None:
        """``None`` restores the default responder (which answers :attr:`answer`)."""
        self._responder = responder

    def script(self, replies: Iterable[Reply | str]) -> None:
        """Queue replies for the next generation requests, in order; then the responder."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Scripted replies not yet consumed."""
        with self._lock:
            return len(self._queue)

    def add_rule(self, rule: FaultRule) -> FaultRule:
        with self._lock:
            self._rules.append(rule)
        return rule

    def fail_every(
        self, n: int, reply: Reply | Responder, *, paths: tuple[str, ...] = GENERATION_PATHS
    ) -> FaultRule:
        """Answer every ``n``-th matching request with ``reply`` (e.g. a 429)."""
        return self.add_rule(FaultRule(reply, every=n, paths=paths))

    def fail_first(
        self, k: int, reply: Reply | Responder, *, paths: tuple[str, ...] = GENERATION_PATHS
    ) -> FaultRule:
        """Answer the first ``k`` matching requests with ``reply`` (e.g. a 503 while loading)."""
        return self.add_rule(FaultRule(reply, first=k, paths=paths))

    def clear_rules(self) -> None:
        with self._lock:
            self._rules.clear()

    # ------------------------------------------------------------------ recording

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def last_request(self) -> RecordedRequest:
        with self._lock:
            if not self._requests:
                raise LookupError("no request received yet")
            return self._requests[-1]

    @property
    def errors(self) -> list[BaseException]:
        """Exceptions from responders (each answered with HTTP 500) or from the server itself."""
        with self._lock:
            return list(self._errors)

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least ``count`` requests arrived: lets a test sync with a hang."""
        with self._request_added:
            if not self._request_added.wait_for(lambda: len(self._requests) >= count, timeout):
                raise TimeoutError(f"{len(self._requests)} of {count} requests after {timeout} s")
            return list(self._requests)

    def clear(self) -> None:
        """Forget the recorded requests (scripts, rules and responder stay)."""
        with self._lock:
            self._requests.clear()
            self._errors.clear()

    def reset(self) -> None:
        """Back to a fresh server: no requests, script, rules, or custom responder."""
        with self._lock:
            self._requests.clear()
            self._errors.clear()
            self._queue.clear()
            self._rules.clear()
        self._responder = None

    # ------------------------------------------------------------------ the loop

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:  # reported to start(); never lost in a thread
            self._startup_error = exc
        finally:
            self._ready.set()
            loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        server = await asyncio.start_server(
            self._handle_connection,
            HOST,
            self._requested_port,
            limit=MAX_HEAD_BYTES,
            backlog=2048,
            reuse_address=True,
        )
        self._port = server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            await self._stopping.wait()
        finally:
            server.close()
            for writer in list(self._writers):
                writer.transport.abort()
            for task in list(self._tasks):
                task.cancel()
            if self._tasks:
                await asyncio.wait(list(self._tasks), timeout=0.5)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 0.2)

    async def _handle_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Serve requests on one keep-alive connection until either side closes it."""
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._writers.add(writer)
        connection_id = next(self._connection_ids)
        try:
            while True:
                try:
                    request = await self._read_request(reader, writer)
                except _BadRequest as exc:
                    body = _error_body(exc.status, str(exc), None, None)
                    await self._send(writer, exc.status, body, {}, keep_alive=False)
                    return
                if request is None:
                    return
                if not await self._respond(request, connection_id, reader, writer):
                    return
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client left, or the server is stopping: nothing to answer
        except Exception as exc:  # a bug in this server: keep it for the test to see
            with self._lock:
                self._errors.append(exc)
        finally:
            self._writers.discard(writer)
            self._tasks.discard(task)
            if self._stopping_now():
                writer.transport.abort()
            else:
                writer.close()

    def _stopping_now(self) -> bool:
        return self._stopping is not None and self._stopping.is_set()

    async def _read_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> _Request | None:
        """Parse one HTTP/1.1 request; ``None`` when the client closed between requests."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if exc.partial.strip():
                raise _BadRequest(400, "incomplete request head") from None
            return None
        except asyncio.LimitOverrunError:
            raise _BadRequest(431, "request head too large") from None
        arrived = time.monotonic()
        lines = head.lstrip(b"\r\n").decode("latin-1").split("\r\n")
        try:
            method, target, version = lines[0].split(" ")
        except ValueError:
            raise _BadRequest(400, f"malformed request line {lines[0]!r}") from None
        raw_headers: list[tuple[str, str]] = []
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if not line:
                continue
            name, sep, value = line.partition(":")
            if not sep:
                raise _BadRequest(400, f"malformed header line {line!r}")
            name, value = name.strip(), value.strip()
            raw_headers.append((name, value))
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        if headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = await self._read_chunked(reader)
        else:
            try:
                length = int(headers.get("content-length", "0"))
            except ValueError:
                raise _BadRequest(400, "bad Content-Length") from None
            if length < 0 or length > MAX_BODY_BYTES:
                raise _BadRequest(413, "request body too large")
            body = await reader.readexactly(length) if length else b""
        return _Request(method, target, version, raw_headers, headers, body, arrived)

    @staticmethod
    async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            size_line = await reader.readuntil(b"\r\n")
            try:
                size = int(size_line.split(b";")[0].strip(), 16)
            except ValueError:
                raise _BadRequest(400, "bad chunk size") from None
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                    pass
                return b"".join(parts)
            total += size
            if total > MAX_BODY_BYTES:
                raise _BadRequest(413, "request body too large")
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)

    # ------------------------------------------------------------------ answering

    def _record(
        self, request: _Request, path: str, query: str, data: Any, connection_id: int
    ) -> RecordedRequest:
        with self._request_added:
            recorded = RecordedRequest(
                index=len(self._requests),
                method=request.method,
                path=path,
                query=query,
                headers=request.headers,
                raw_headers=tuple(request.raw_headers),
                body=request.body,
                json=data,
                received_at=time.time() - (time.monotonic() - request.monotonic),
                received_monotonic=request.monotonic,
                connection_id=connection_id,
            )
            self._requests.append(recorded)
            self._request_added.notify_all()
        return recorded

    async def _respond(
        self,
        request: _Request,
        connection_id: int,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        """Answer one request; return whether the connection may carry another."""
        path, _, query = request.target.partition("?")
        if not path.startswith("/v1/") and path in ("/chat/completions", "/completions", "/models"):
            path = "/v1" + path  # llama.cpp answers both spellings; so do we
        path = path.rstrip("/") or "/"
        data: Any = None
        parse_error: str | None = None
        if request.body:
            try:
                data = json.loads(request.body)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                parse_error = f"We could not parse the JSON body of your request. ({exc})"
        self._record(request, path, query, data, connection_id)
        keep_alive = self._keep_alive(request)

        if path == MODELS_PATH or path.startswith(MODELS_PATH + "/"):
            if request.method != "GET":
                return await self._send_error(writer, 405, "Method not allowed.", keep_alive)
            rule_reply = self._rule_reply(MODELS_PATH)
            if rule_reply is not None:
                reply = await self._resolve(rule_reply, {})
                if reply.fault is not None or reply.status >= 400 or reply.body is not None:
                    return await self._deliver(reply, b"", writer, reader, keep_alive)
            return await self._send_models(path, writer, keep_alive)
        if path == FILES_PATH or path.startswith((FILES_PATH + "/", BATCHES_PATH)):
            return await self._batch_api(request, path, data, writer, reader, keep_alive)
        if path not in GENERATION_PATHS:
            return await self._send_error(
                writer, 404, f"Invalid URL ({request.method} {path})", keep_alive
            )
        if request.method != "POST":
            return await self._send_error(writer, 405, "Method not allowed.", keep_alive)
        if parse_error is not None or not isinstance(data, dict):
            message = parse_error or "The request body must be a JSON object."
            return await self._send_error(writer, 400, message, keep_alive)
        invalid = self._validate(path, data)
        if invalid is not None:
            status, message = invalid
            code = 500 if status == 500 else None  # llama.cpp puts the status in "code"
            body = _error_body(status, message, None, code)
            await self._send(writer, status, body, {}, keep_alive=keep_alive)
            return keep_alive

        try:
            reply = await self._resolve(self._choose(path, data), data)
        except Exception as exc:  # a broken responder is a test bug: say so loudly
            with self._lock:
                self._errors.append(exc)
            message = f"test server responder raised {type(exc).__name__}: {exc}"
            return await self._send_error(writer, 500, message, keep_alive)
        body = b"" if reply.status >= 400 else self._completion_body(path, data, reply)
        return await self._deliver(reply, body, writer, reader, keep_alive)

    # ------------------------------------------------------------------ Batch API

    async def _batch_api(
        self,
        request: _Request,
        path: str,
        data: Any,
        writer: asyncio.StreamWriter,
        reader: asyncio.StreamReader,
        keep_alive: bool,
    ) -> bool:
        """Upload a file, start and check on a batch, download a file's content."""
        parts = path.strip("/").split("/")  # v1, files|batches, [id, [content]]
        found: Any = None
        if request.method == "POST" and path == FILES_PATH:
            found = self._upload(request)
        elif request.method == "POST" and path == BATCHES_PATH and isinstance(data, dict):
            found = await self._start_batch(data)
        elif request.method == "GET" and parts[1] == "batches" and len(parts) == 3:
            found = self._batches.get(parts[2])
            if found is not None and found["status"] == "in_progress":
                found["status"] = "completed"
        elif request.method == "GET" and len(parts) == 4 and parts[3] == "content":
            rule_reply = self._rule_reply(FILE_CONTENT_PATH)
            if rule_reply is not None:
                reply = await self._resolve(rule_reply, {})
                return await self._deliver(reply, b"", writer, reader, keep_alive)
            if parts[2] in self._files:
                await self._send(writer, 200, self._files[parts[2]], {}, keep_alive=keep_alive)
                return keep_alive
        if found is None:
            return await self._send_error(
                writer, 404, f"Invalid URL ({request.method} {path})", keep_alive
            )
        await self._send(writer, 200, json.dumps(found).encode(), {}, keep_alive=keep_alive)
        return keep_alive

    def _add_file(self, content: bytes, purpose: str, name: str) -> dict[str, Any]:
        file_id = f"file-tiebreak{len(self._files) + 1:04d}"
        self._files[file_id] = content
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": name,
            "purpose": purpose,
            "status": "processed",
        }

    def _upload(self, request: _Request) -> dict[str, Any] | None:
        """A multipart/form-data upload's ``file`` and ``purpose`` fields."""
        head = f"Content-Type: {request.headers.get('content-type', '')}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + request.body)
        fields = {
            part.get_param("name", header="content-disposition"): part
            for part in message.iter_parts()
        }
        if "file" not in fields:
            return None
        purpose = fields["purpose"].get_content() if "purpose" in fields else "batch"
        content = fields["file"].get_payload(decode=True)
        return self._add_file(content, str(purpose).strip(), fields["file"].get_filename() or "")

    async def _start_batch(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """A batch whose every request is answered now, as the endpoint would answer it."""
        content = self._files.get(str(data.get("input_file_id")))
        if content is None:
            return None
        lines, failed = [], 0
        for number, line in enumerate(content.decode().splitlines(), start=1):
            item = json.loads(line)
            path, body = item["url"], item["body"]
            invalid = self._validate(path, body)
            if invalid is None:
                reply = await self._resolve(self._choose(path, body), body)
                status = reply.status
                answer = (
                    self._completion_body(path, body, reply)
                    if status < 400
                    else _error_body(status, reply.error_message, reply.error_type, None)
                )
            else:
                status, answer = invalid[0], _error_body(invalid[0], invalid[1], None, None)
            failed += status >= 400
            response = {
                "status_code": status,
                "request_id": f"req-{number}",
                "body": json.loads(answer),
            }
            lines.append({"id": f"batch_req_{number}", "custom_id": item["custom_id"],
                          "response": response, "error": None})  # fmt: skip
        output = "".join(json.dumps(line) + "\n" for line in lines).encode()
        batch_id = f"batch_tiebreak{len(self._batches) + 1:04d}"
        self._batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": data.get("endpoint"),
            "input_file_id": data["input_file_id"],
            "completion_window": data.get("completion_window", "24h"),
            "status": "in_progress",
            "created_at": int(time.time()),
            "output_file_id": self._add_file(output, "batch_output", "output.jsonl")["id"],
            "error_file_id": None,
            "request_counts": {"total": len(lines), "completed": len(lines) - failed,
                               "failed": failed},
        }  # fmt: skip
        return self._batches[batch_id]

    @staticmethod
    def _keep_alive(request: _Request) -> bool:
        connection = request.headers.get("connection", "").lower()
        if request.version == "HTTP/1.0":
            return "keep-alive" in connection
        return "close" not in connection

    def _rule_reply(self, path: str) -> Reply | Responder | None:
        # Every rule counts every matching request, so "every 3rd" stays the 3rd, 6th...
        # whatever other rules do; the first rule that hits answers.
        winner: FaultRule | None = None
        with self._lock:
            for rule in self._rules:
                if rule._take(path) and winner is None:
                    winner = rule
            if winner is None:
                return None
            winner.fired += 1
            return winner.reply

    def _choose(self, path: str, data: dict[str, Any]) -> Reply | str | Responder:
        rule_reply = self._rule_reply(path)
        if rule_reply is not None:
            return rule_reply
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self._responder if self._responder is not None else self.answer

    async def _resolve(self, choice: Reply | str | Responder, data: dict[str, Any]) -> Reply:
        result: Any = choice
        if callable(result):
            result = result(data)
            if inspect.isawaitable(result):
                result = await result
        if isinstance(result, str):
            return Reply(content=result)
        if isinstance(result, Reply):
            return result
        raise TypeError(f"a responder must return str or Reply, not {type(result).__name__}")

    def _validate(self, path: str, data: dict[str, Any]) -> tuple[int, str] | None:
        """Reject what OpenAI (or llama.cpp) would reject, so client bugs surface in tests."""
        if data.get("stream"):
            return 400, "stream=true is not supported by the Tiebreak test server."
        if self.reject_grammar and "grammar" in data:  # OpenAI's answer to llama.cpp's field
            return 400, "Unrecognized request argument supplied: grammar"
        if path == CHAT_PATH:
            messages = data.get("messages")
            if not isinstance(messages, list) or not messages:
                return 400, "Missing required parameter: 'messages'."
            if not all(isinstance(m, dict) and "role" in m for m in messages):
                return 400, "Every message needs a 'role'."
            top = data.get("top_logprobs")
            if top is not None:
                if not data.get("logprobs"):
                    return 400, "'logprobs' must be set to true when 'top_logprobs' is used."
                if not isinstance(top, int) or not 0 <= top <= MAX_CHAT_TOP_LOGPROBS:
                    return 400, f"'top_logprobs' must be an integer 0..{MAX_CHAT_TOP_LOGPROBS}."
        else:
            if "prompt" not in data:
                return 400, "Missing required parameter: 'prompt'."
            lp = data.get("logprobs")
            if lp is not None and (
                isinstance(lp, bool)
                or not isinstance(lp, int)
                or not 0 <= lp <= MAX_COMPLETION_LOGPROBS
            ):
                return 400, f"'logprobs' must be an integer 0..{MAX_COMPLETION_LOGPROBS}."
        response_format = data.get("response_format")
        if response_format is None:
            return None
        if not isinstance(response_format, dict) or "type" not in response_format:
            return 400, "'response_format' must be an object with a 'type'."
        kind = response_format["type"]
        if kind == "text":
            return None
        if kind == "json_object":
            schema = response_format.get("schema")
            if schema is not None and not isinstance(schema, dict):
                return 400, "'response_format.schema' must be an object."
            return None
        if kind == "json_schema":
            if self.reject_json_schema:
                return 500, (
                    'response_format type must be one of "text" or "json_object", '
                    "but got: json_schema"
                )
            spec = response_format.get("json_schema")
            if not isinstance(spec, dict) or not spec.get("name"):
                return 400, "Missing required parameter: 'response_format.json_schema.name'."
            return None
        return 400, f"Invalid value for 'response_format.type': {kind!r}."

    # ------------------------------------------------------------------ bodies

    def _token_logprobs(self, reply: Reply, content: str, top_n: int) -> list[TokenLogprob]:
        """The scripted logprobs, or plausible ones made up from the content."""
        if reply.logprobs is not None:
            tokens = list(reply.logprobs)
        else:
            tokens = []
            for token in _tokenize(content):
                alternatives = [a for a in _ALTERNATIVES if a != token]
                top = ((token, -0.01), *((a, -3.0 - i) for i, a in enumerate(alternatives)))
                tokens.append(TokenLogprob(token, -0.01, top))
        if reply.top_logprobs and tokens:
            first = tokens[0]
            ranked = sorted(reply.top_logprobs.items(), key=lambda kv: kv[1], reverse=True)
            logprob = reply.top_logprobs.get(first.token, first.logprob)
            tokens[0] = TokenLogprob(first.token, logprob, tuple(ranked))
        out = []
        for tok in tokens:
            top = list(tok.top[:top_n])
            while len(top) < top_n:  # OpenAI always returns exactly the number asked for
                top.append((f"<alt{len(top)}>", -10.0 - len(top)))
            out.append(TokenLogprob(tok.token, tok.logprob, tuple(top)))
        return out

    def _completion_body(self, path: str, data: dict[str, Any], reply: Reply) -> bytes:
        content = reply.content if reply.content is not None else self.answer
        index = next(self._counter)
        n = data.get("n") if isinstance(data.get("n"), int) and data["n"] > 0 else 1
        model = data.get("model") or (self.models[0] if self.models else "test-model")
        completion_tokens = len(_tokenize(content)) * n
        if path == CHAT_PATH:
            prompt_text = " ".join(
                m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
                for m in data["messages"]
            )
            logprobs: dict[str, Any] | None = None
            if data.get("logprobs"):
                top_n = int(data.get("top_logprobs") or 0)
                logprobs = {
                    "content": [
                        {
                            "token": t.token,
                            "logprob": t.logprob,
                            "bytes": list(t.token.encode()),
                            "top_logprobs": [
                                {"token": a, "logprob": lp, "bytes": list(a.encode())}
                                for a, lp in t.top
                            ],
                        }
                        for t in self._token_logprobs(reply, content, top_n)
                    ],
                    "refusal": None,
                }
            choices: list[dict[str, Any]] = [
                {
                    "index": i,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "logprobs": logprobs,
                    "finish_reason": reply.finish_reason,
                }
                for i in range(n)
            ]
            obj, prefix = "chat.completion", "chatcmpl"
        else:
            prompt = data["prompt"]
            prompt_text = prompt if isinstance(prompt, str) else json.dumps(prompt)
            clp: dict[str, Any] | None = None
            if data.get("logprobs") is not None:
                tokens = self._token_logprobs(reply, content, int(data["logprobs"]))
                offsets = list(itertools.accumulate((len(t.token) for t in tokens), initial=0))
                clp = {
                    "tokens": [t.token for t in tokens],
                    "token_logprobs": [t.logprob for t in tokens],
                    "top_logprobs": [dict(t.top) for t in tokens],
                    "text_offset": offsets[:-1],
                }
            choices = [
                {"text": content, "index": i, "logprobs": clp, "finish_reason": reply.finish_reason}
                for i in range(n)
            ]
            obj, prefix = "text_completion", "cmpl"
        prompt_tokens = len(_tokenize(prompt_text))
        return json.dumps(
            {
                "id": f"{prefix}-tiebreak{index:08d}",
                "object": obj,
                "created": int(time.time()),
                "model": model,
                "system_fingerprint": "fp_tiebreak_test",
                "choices": choices,
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
            ensure_ascii=False,
        ).encode()

    async def _send_models(self, path: str, writer: asyncio.StreamWriter, keep_alive: bool) -> bool:
        def model(model_id: str) -> dict[str, Any]:
            return {
                "id": model_id,
                "object": "model",
                "created": 1700000000,
                "owned_by": "tiebreak",
            }

        if path == MODELS_PATH:
            payload: dict[str, Any] = {"object": "list", "data": [model(m) for m in self.models]}
        else:
            wanted = path[len(MODELS_PATH) + 1 :]
            if wanted not in self.models:
                return await self._send_error(
                    writer, 404, f"The model '{wanted}' does not exist", keep_alive
                )
            payload = model(wanted)
        await self._send(writer, 200, json.dumps(payload).encode(), {}, keep_alive=keep_alive)
        return keep_alive

    # ------------------------------------------------------------------ the wire

    async def _deliver(
        self,
        reply: Reply,
        body: bytes,
        writer: asyncio.StreamWriter,
        reader: asyncio.StreamReader,
        keep_alive: bool,
    ) -> bool:
        """Send ``reply`` (after its delay), injecting its fault if it has one."""
        delay = reply.delay if reply.delay is not None else self.delay
        if delay > 0:
            await asyncio.sleep(delay)
        headers = dict(reply.headers)
        if reply.retry_after is not None:
            headers.setdefault("Retry-After", _format_seconds(reply.retry_after))
        status = reply.status
        if reply.body is not None:
            body = reply.body
        elif status >= 400:
            body = _error_body(status, reply.error_message, reply.error_type, reply.error_code)

        fault = reply.fault
        if fault is None:
            await self._send(writer, status, body, headers, keep_alive=keep_alive)
            return keep_alive
        if fault == Fault.HANG:
            # Keep reading so we notice the client giving up, and discard anything it sends.
            while await reader.read(65536):
                pass
            return False
        if fault == Fault.DROP:
            return False
        if fault == Fault.DROP_MID_HEADERS:
            head = self._head(status, len(body), headers, keep_alive)
            writer.write(head[: len(head) // 2])
            await writer.drain()
            return False
        if fault == Fault.GARBAGE:
            garbage = b"<html><body>upstream said: this is not JSON {{{</body></html>\n"
            await self._send(writer, 200, garbage, headers, keep_alive=keep_alive)
            return keep_alive
        if fault == Fault.TRUNCATED:
            await self._send(writer, 200, body[: len(body) // 2], headers, keep_alive=keep_alive)
            return keep_alive
        if fault == Fault.BOMB:
            await self._send_bomb(writer, reply, headers, keep_alive)
            return keep_alive
        if fault == Fault.DRIP:
            writer.write(self._head(status, len(body), headers, keep_alive))
            await writer.drain()
            for i in range(len(body)):
                await asyncio.sleep(reply.drip_interval)
                if writer.is_closing() or reader.at_eof():
                    return False
                writer.write(body[i : i + 1])
                await writer.drain()
            return keep_alive
        raise ValueError(f"unknown fault {fault!r}")

    async def _send_bomb(
        self,
        writer: asyncio.StreamWriter,
        reply: Reply,
        headers: Mapping[str, str],
        keep_alive: bool,
    ) -> None:
        """A :attr:`Fault.BOMB` body, made as the client reads it (as far as it reads)."""
        headers = dict(headers)
        if reply.encoding is not None:
            headers.setdefault("Content-Encoding", reply.encoding)
        pieces = _bomb_pieces(reply.inflate_to, reply.status)
        if reply.chunked:
            writer.write(self._head(reply.status, None, headers, keep_alive))
            for data in _encoded(pieces, reply.encoding):
                if data:
                    writer.write(b"%x\r\n%s\r\n" % (len(data), data))
                    await writer.drain()
            writer.write(b"0\r\n\r\n")
        else:
            if reply.encoding is None:
                length = sum(len(p) for p in _bomb_pieces(reply.inflate_to, reply.status))
            else:
                body = _encoded_bomb(reply.inflate_to, reply.status, reply.encoding)
                length = len(body)
                pieces = (body[i : i + _BOMB_PIECE] for i in range(0, length, _BOMB_PIECE))
            writer.write(self._head(reply.status, length, headers, keep_alive))
            for data in pieces:
                writer.write(data)
                await writer.drain()
        await writer.drain()

    @staticmethod
    def _head(
        status: int, length: int | None, headers: Mapping[str, str], keep_alive: bool
    ) -> bytes:
        """A response head; ``length`` None: the body follows in chunks."""
        phrase = _reason(status)
        framing = (
            ("Content-Length", str(length))
            if length is not None
            else ("Transfer-Encoding", "chunked")
        )
        merged = {
            "content-type": ("Content-Type", "application/json"),
            framing[0].lower(): framing,
            "connection": ("Connection", "keep-alive" if keep_alive else "close"),
        }
        for name, value in headers.items():
            merged[name.lower()] = (name, value)
        lines = [f"HTTP/1.1 {status} {phrase}"]
        lines.extend(f"{name}: {value}" for name, value in merged.values())
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def _send(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        body: bytes,
        headers: Mapping[str, str],
        *,
        keep_alive: bool,
    ) -> None:
        writer.write(self._head(status, len(body), headers, keep_alive) + body)
        await writer.drain()

    async def _send_error(
        self, writer: asyncio.StreamWriter, status: int, message: str, keep_alive: bool
    ) -> bool:
        await self._send(
            writer, status, _error_body(status, message, None, None), {}, keep_alive=keep_alive
        )
        return keep_alive


# ---------------------------------------------------------------------------- CLI


def _crash(request: dict[str, Any]) -> Reply:
    """Die as a segfaulting native library dies: by SIGSEGV, mid-request, without a core."""
    import os
    import resource

    print("crashing on this request, as --crash-on asked", flush=True)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.kill(os.getpid(), signal.SIGSEGV)
    return Reply.hang()  # not reached


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until SIGTERM/SIGINT; print ``READY <base_url>`` once the port is open."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="sleep before every answer")
    parser.add_argument("--answer", default="A", help="content of every answer (default: A)")
    parser.add_argument("--model", action="append", help="model id to list (repeatable)")
    parser.add_argument("--reject-json-schema", action="store_true", help="llama.cpp-style 500")
    parser.add_argument("--reject-grammar", action="store_true", help="OpenAI-style 400")
    parser.add_argument("--fail-every", type=int, default=0, help="fault every N-th request")
    parser.add_argument("--fail-status", type=int, default=429, help="status for --fail-every")
    parser.add_argument("--retry-after", type=float, default=None, help="Retry-After seconds")
    parser.add_argument(
        "--crash-on", type=int, default=0, help="die of SIGSEGV when the N-th request arrives"
    )
    args = parser.parse_args(argv)

    server = OpenAIServer(
        port=args.port,
        answer=args.answer,
        delay=args.delay_ms / 1000,
        reject_json_schema=args.reject_json_schema,
        reject_grammar=args.reject_grammar,
        models=args.model or ("test-model",),
    )
    if args.fail_every:
        server.fail_every(
            args.fail_every, Reply.error(args.fail_status, retry_after=args.retry_after)
        )
    if args.crash_on:
        server.add_rule(FaultRule(_crash, every=args.crash_on))
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    server.start()
    print(f"READY {server.base_url}", flush=True)
    try:
        while not done.wait(0.1):  # short, so a signal is acted on promptly
            pass
    finally:
        server.stop(timeout=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
