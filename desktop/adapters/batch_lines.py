"""The lines of batch files: OpenAI's Batch API and vLLM's ``run-batch`` (one shape), and
Anthropic's Message Batches. A request line out; a result line in, read into one outcome
whichever service wrote it, so the service that stores results knows one shape.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from desktop.adapters.model_client import Completion, completion_from_body
from desktop.domain.errors import ImportDataError, TiebreakError

OPENAI, ANTHROPIC = "openai", "anthropic"
# Anthropic's rule for a custom_id; OpenAI's take anything, so theirs keep the colons
# every batch exported before had.
_ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
# What one batch may hold, by the services' documentation: (service, requests, bytes).
# vLLM's run-batch and a Ray job take a file of any size.
LIMITS = {
    OPENAI: ("OpenAI's Batch API takes", 50_000, 200 * 1024 * 1024),
    ANTHROPIC: ("Anthropic's Message Batches take", 100_000, 256 * 1024 * 1024),
}
_NEVER_RUN = {"batch_expired": "expired", "batch_cancelled": "canceled"}
# What a Messages request cannot carry and that would shape the answer: refused. Logprobs
# are left out instead, as a live server that gives none leaves the confidence empty.
_NOT_FOR_ANTHROPIC = {
    "grammar": "a grammar (the profile sends llama.cpp's)",
    "response_format": "a response_format (the profile's structured output)",
}


def custom_id(shape: str, tag: str, pair_id: int, order: str) -> str:
    sep = "_" if shape == ANTHROPIC else ":"
    made = sep.join(("tb", tag, str(pair_id), order))
    assert shape != ANTHROPIC or _ANTHROPIC_ID.match(made), made
    return made


def request_line(shape: str, made_id: str, endpoint: str, body: dict[str, Any]) -> dict[str, Any]:
    if shape == ANTHROPIC:
        return {"custom_id": made_id, "params": anthropic_params(body)}
    return {"custom_id": made_id, "method": "POST", "url": endpoint, "body": body}


def anthropic_params(body: dict[str, Any]) -> dict[str, Any]:
    """A chat request as a Messages request: the leading system messages become ``system``;
    what would shape the answer and Messages cannot carry is refused, not dropped, so a
    batch asks what a live run would."""
    if "messages" not in body:
        raise TiebreakError(
            "Anthropic's batches take chat requests: this profile sends completions"
        )
    for key, what in _NOT_FOR_ANTHROPIC.items():
        if key in body:
            raise TiebreakError(f"an Anthropic batch cannot carry {what}")
    if not 0 <= body["temperature"] <= 1:
        raise TiebreakError(f"Anthropic takes a temperature from 0 to 1, not {body['temperature']}")
    messages = list(body["messages"])
    system: list[str] = []
    while messages and messages[0]["role"] == "system":
        system.append(messages.pop(0)["content"])
    if any(m["role"] == "system" for m in messages):
        raise TiebreakError("Anthropic takes system text only before the first message")
    params: dict[str, Any] = {
        "model": body["model"],
        "max_tokens": body["max_tokens"],
        "temperature": body["temperature"],
    }
    if system:
        params["system"] = "\n\n".join(system)
    params["messages"] = [{"role": m["role"], "content": m["content"]} for m in messages]
    return params


@dataclass(frozen=True)
class Outcome:
    """One result line: an answer (``completion``), an ``error`` the service gave, or a
    request it never ran (``unanswered``: "expired", "canceled")."""

    custom_id: str
    completion: Completion | None = None
    error: str | None = None
    unanswered: str | None = None


def parse_line(line: str, where: str) -> tuple[str, dict[str, Any]]:
    """A result line's custom_id and the line, of either shape."""
    try:
        item = json.loads(line)
        made_id = item["custom_id"]
    except (json.JSONDecodeError, KeyError, TypeError):
        raise ImportDataError(f"{where}: not a batch output line (no custom_id)") from None
    if not isinstance(made_id, str):
        raise ImportDataError(f"{where}: custom_id {made_id!r} is not text")
    return made_id, item


def outcome(made_id: str, item: dict[str, Any], api_mode: str, where: str) -> Outcome:
    """What a result line says; ``api_mode`` (the manifest's) reads an OpenAI line's body."""
    if "result" in item:
        return _anthropic(made_id, item["result"], where)
    return _openai(made_id, item, api_mode, where)


def _openai(made_id: str, item: dict[str, Any], api_mode: str, where: str) -> Outcome:
    response = item.get("response") or {}
    if not isinstance(response, dict):
        raise ImportDataError(f"{where}: 'response' is not an object")
    status_code = response.get("status_code")
    body = response.get("body")
    if item.get("error") or status_code != 200 or not isinstance(body, dict):
        error = item.get("error") or (body.get("error") if isinstance(body, dict) else None)
        code = error.get("code") if isinstance(error, dict) else None
        if code in _NEVER_RUN:  # OpenAI's lines for the requests a batch did not reach
            return Outcome(made_id, unanswered=_NEVER_RUN[code])
        if isinstance(error, dict) and isinstance(error.get("error"), dict):
            error = error["error"]  # vLLM's ErrorResponse wraps the details
        if isinstance(error, dict):
            message = error.get("message") or json.dumps(error)
        else:
            message = str(error) if error else f"status {status_code}"
        return Outcome(made_id, error=str(message))
    try:
        return Outcome(made_id, completion=completion_from_body(api_mode, body))
    except ValueError as exc:  # pydantic's ValidationError is one
        raise ImportDataError(
            f"{where}: response body is not a completion ({str(exc).splitlines()[0]})"
        ) from None


def _anthropic(made_id: str, result: Any, where: str) -> Outcome:
    kind = result.get("type") if isinstance(result, dict) else None
    if kind in ("expired", "canceled"):
        return Outcome(made_id, unanswered=kind)
    if kind == "errored":
        error = result.get("error")
        while isinstance(error, dict) and isinstance(error.get("error"), dict):
            error = error["error"]  # the batch's wrapper around the API's error object
        message = error.get("message") if isinstance(error, dict) else None
        return Outcome(made_id, error=str(message or json.dumps(error)))
    if kind != "succeeded":
        raise ImportDataError(
            f"{where}: 'result' has no type succeeded, errored, canceled or expired"
        )
    message = result.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        raise ImportDataError(f"{where}: result message is not a Messages API message")
    usage = message.get("usage") if isinstance(message.get("usage"), dict) else {}
    text = "".join(str(b.get("text", "")) for b in content if b.get("type") == "text")
    return Outcome(
        made_id,
        completion=Completion(
            text=text,
            top_logprobs=(),
            prompt_tokens=_count(usage.get("input_tokens")),
            completion_tokens=_count(usage.get("output_tokens")),
            latency_ms=None,
            attempts=1,
        ),
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
