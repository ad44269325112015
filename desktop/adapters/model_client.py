"""Calls to any OpenAI-compatible server, with a deadline and retries that know what heals.

The openai client's own retries are off: it would retry an exhausted quota, and its read
timeout never ends a server that drips one byte at a time. Here every attempt has an
overall deadline; 408, 409, 429 (but not insufficient_quota), 5xx, dropped connections and
unreadable answers are retried with backoff, honouring Retry-After; 400, 401, 403, 404 and
an exhausted quota are not.

Everything the server says (error messages, model names, completions) passes through the
client's key masker on its way in, so a key a server echoes never reaches a message, a log
or the project. Its messages and model names are shown too: their control characters (a
CR LF that would start a forged line, a bidi override) are escaped before they are cut
short or kept; a completion is kept as it came. A reply is read up to ``REPLY_CAP``
bytes, decoded (``reply_cap``).

A password in the base URL is sent as basic auth and never shown: the URL in every
message is the one without it.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import openai
from openai.types import Completion as TextCompletion
from openai.types.chat import ChatCompletion

from desktop.adapters.keys import key_masker
from desktop.adapters.reply_cap import REPLY_CAP, async_http_client, size_text, too_large
from desktop.domain.base_urls import basic_auth, split_password, without_userinfo
from desktop.domain.requests import ModelRequest
from desktop.domain.shown_text import shown

DEFAULT_BACKOFF = 0.5  # seconds before the first retry; doubles with each further one
MAX_BACKOFF = 30.0
MAX_RETRY_AFTER = 120.0


@dataclass(frozen=True)
class Completion:
    text: str
    # Per generated position, the top alternatives (token, logprob); empty without logprobs.
    top_logprobs: tuple[tuple[tuple[str, float], ...], ...]
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    attempts: int


class ModelCallError(Exception):
    """A request that failed for good. ``fatal`` means every other request would fail the
    same way (wrong key, unknown model, no quota, server unreachable): stop the job."""

    def __init__(self, message: str, *, fatal: bool = False, kind: str = "error") -> None:
        super().__init__(message)
        self.fatal = fatal
        self.kind = kind  # "auth", "not-found", "quota", "bad-request", "unreachable", ...

    @property
    def server_unusable(self) -> bool:
        """Whether a probe call's failure means the server cannot be used at all (a missing
        model list alone does not: some servers have no /models)."""
        return (self.fatal and self.kind != "not-found") or self.kind in ("unreachable", "timeout")


class ModelClient:
    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout: float,
        max_retries: int,
        backoff: float = DEFAULT_BACKOFF,
        mask: Callable[[str], str] | None = None,
        alive: Callable[[], bool] | None = None,
        password: str | None = None,
    ) -> None:
        """``password``: the base URL's, where the URL names a user (one written in
        ``base_url`` itself is taken out of it)."""
        self.base_url, written = split_password(base_url)  # what messages show
        password = password if password is not None else written
        self.mask = mask or key_masker([api_key, password])
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        # Whether the server's process still runs, where we started it: no retry knocks on
        # the door of a process that is gone.
        self.alive = alive
        auth = basic_auth(self.base_url, password)
        self._client = openai.AsyncOpenAI(
            base_url=without_userinfo(self.base_url) if auth else self.base_url,
            api_key=api_key or "no-key",
            max_retries=0,
            timeout=openai.Timeout(timeout, connect=min(timeout, 10.0)),
            http_client=async_http_client(REPLY_CAP, basic_auth=auth),
        )

    async def close(self) -> None:
        await self._client.close()

    async def list_models(self) -> list[str]:
        limit = min(self.timeout, 15.0)
        try:
            page = await asyncio.wait_for(self._client.models.list(), timeout=limit)
        except Exception as exc:
            raise _classify(exc, self.base_url, limit, self._clean)[0] from None
        return [self._clean(str(m.id)) for m in page.data]

    async def complete(self, request: ModelRequest) -> Completion:
        attempt = 0
        started = time.perf_counter()
        while True:
            attempt += 1
            try:
                # asyncio.timeout, not wait_for: no extra task per request on the hot path.
                async with asyncio.timeout(self.timeout):
                    response = await self._send(request)
                completion = completion_from_response(
                    request.api_mode,
                    response,
                    latency_ms=(time.perf_counter() - started) * 1000,
                    attempts=attempt,
                )
                text = self.mask(completion.text)
                return completion if text == completion.text else replace(completion, text=text)
            except Exception as exc:
                error, retryable, wait = _classify(exc, self.base_url, self.timeout, self._clean)
                if not retryable or attempt > self.max_retries:
                    if retryable and attempt > 1:
                        error = ModelCallError(
                            f"{error} (after {attempt} attempts)",
                            fatal=error.fatal,
                            kind=error.kind,
                        )
                    raise error from None
                delay = wait if wait is not None else self.backoff * 2 ** (attempt - 1)
                delay = min(delay, MAX_RETRY_AFTER if wait is not None else MAX_BACKOFF)
                await asyncio.sleep(delay * (1 + random.random() * 0.1))
                if self.alive is not None and not self.alive():
                    raise error from None

    def _clean(self, text: str) -> str:
        """A server's text as a message may hold it: keys hidden, controls escaped (both
        before any cut, so no part of a key or of an escape is left)."""
        return shown(self.mask(text))

    async def _send(self, request: ModelRequest) -> ChatCompletion | TextCompletion:
        """POST exactly ``request.body()`` through the client's documented ``post``: the same
        auth, headers, connection pool, errors and response types as ``create(**body)``,
        without ``create``'s walk of the whole body against its parameter types (long
        prompts included), the costliest step on the client's side of a judge call. It also
        sends a completions ``response_format`` (llama.cpp and vLLM take one) as is."""
        if request.api_mode == "chat":
            return await self._client.post(
                "/chat/completions", body=request.body(), cast_to=ChatCompletion
            )
        return await self._client.post("/completions", body=request.body(), cast_to=TextCompletion)


def completion_from_response(
    api_mode: str, response: Any, *, latency_ms: float | None = None, attempts: int = 1
) -> Completion:
    """The text, logprobs and usage of a chat or completions response object; ``ValueError``
    when it is not shaped like one."""
    if not getattr(response, "choices", None):
        raise _Garbage("the answer has no choices")
    try:
        return _completion(api_mode, response, latency_ms, attempts)
    except (AttributeError, TypeError, ValueError) as exc:
        raise _Garbage(f"the answer is not shaped like a completion ({_first_line(exc)})") from None


def completion_from_body(api_mode: str, body: Mapping[str, object]) -> Completion:
    """A completion from a response body as JSON (a batch output file's line);
    ``ValueError`` (pydantic's, for a wrong shape) when it is not one."""
    kind = ChatCompletion if api_mode == "chat" else TextCompletion
    return completion_from_response(api_mode, kind.model_validate(body))


def _completion(
    api_mode: str, response: Any, latency_ms: float | None, attempts: int
) -> Completion:
    choice = response.choices[0]
    positions: list[tuple[tuple[str, float], ...]] = []
    if api_mode == "chat":
        text = (choice.message.content if choice.message else None) or ""
        content = getattr(getattr(choice, "logprobs", None), "content", None) or []
        for item in content:
            alternatives = item.top_logprobs or []
            positions.append(
                tuple((a.token, a.logprob) for a in alternatives) or ((item.token, item.logprob),)
            )
    else:
        text = choice.text or ""
        lp = getattr(choice, "logprobs", None)
        for alternatives in getattr(lp, "top_logprobs", None) or []:
            positions.append(tuple((alternatives or {}).items()))
    usage = getattr(response, "usage", None)
    return Completion(
        text=text,
        top_logprobs=tuple(positions),
        prompt_tokens=getattr(usage, "prompt_tokens", None),
        completion_tokens=getattr(usage, "completion_tokens", None),
        latency_ms=latency_ms,
        attempts=attempts,
    )


class _Garbage(ValueError):
    """An answer that is not a completion."""


def _classify(
    exc: BaseException, base_url: str, timeout: float, clean: Callable[[str], str]
) -> tuple[ModelCallError, bool, float | None]:
    """(error to report, whether a retry may heal it, seconds the server asked us to wait).
    Every text from outside goes through ``clean`` before it is cut to length."""
    cap = too_large(exc)
    if cap is not None:  # it would be as large again: not retried
        return (
            ModelCallError(
                f"the answer from {base_url} is larger than {size_text(cap.cap)} once decoded"
                " (a judge's answer is a few KB); not read further",
                kind="too-large",
            ),
            False,
            None,
        )
    if isinstance(exc, (asyncio.TimeoutError, openai.APITimeoutError)):
        return (
            ModelCallError(f"no answer from {base_url} within {timeout:g} s", kind="timeout"),
            True,
            None,
        )
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        message = _server_message(exc, clean)
        wait = _retry_after(exc.response)
        if status == 429:
            if _error_code(exc) == "insufficient_quota":
                return (
                    ModelCallError(
                        f"quota exhausted at {base_url}: {message}", fatal=True, kind="quota"
                    ),
                    False,
                    None,
                )
            return ModelCallError(f"rate limited (429): {message}", kind="rate-limit"), True, wait
        if status in (401, 403):
            return (
                ModelCallError(
                    f"{base_url} refused the API key ({status}): {message}", fatal=True, kind="auth"
                ),
                False,
                None,
            )
        if status == 404:
            return (
                ModelCallError(
                    f"not found at {base_url} (404): {message}; check the base URL and model name",
                    fatal=True,
                    kind="not-found",
                ),
                False,
                None,
            )
        if status in (408, 409) or status >= 500:
            return ModelCallError(f"server error {status}: {message}", kind="server"), True, wait
        return (
            ModelCallError(f"request refused ({status}): {message}", kind="bad-request"),
            False,
            None,
        )
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        return (
            ModelCallError(f"cannot reach {base_url}: {_short(cause, clean)}", kind="unreachable"),
            True,
            None,
        )
    if isinstance(exc, (openai.APIResponseValidationError, ValueError)):  # _Garbage, bad JSON
        return (
            ModelCallError(
                f"unreadable answer from {base_url}: {_short(exc, clean)}", kind="garbage"
            ),
            True,
            None,
        )
    return ModelCallError(f"{type(exc).__name__}: {_short(exc, clean)}", kind="error"), False, None


MESSAGE_CUT = 300  # characters of a server's message kept in an error


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _short(exc: BaseException, clean: Callable[[str], str]) -> str:
    """The first line of an exception's text (a server's words, often), cleaned, then cut."""
    return clean(_first_line(exc))[:MESSAGE_CUT]


def _server_message(exc: openai.APIStatusError, clean: Callable[[str], str]) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return clean(str(inner["message"]))[:MESSAGE_CUT]
    return _short(exc, clean)


def _error_code(exc: openai.APIStatusError) -> str | None:
    if getattr(exc, "code", None):
        return str(exc.code)
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            return inner.get("code") or inner.get("type")
    return None


def _retry_after(response: Any) -> float | None:
    if response is None:
        return None
    ms = response.headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, parsed.timestamp() - time.time())
