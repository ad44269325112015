"""Builders shared by the batch tests: projects judged live and through batch files, the
result lines each service writes, and the stored results to compare."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.domain.pairs import PairContent
from tests.helpers import new_project
from tests.judging_helpers import MODEL, add_pairs, results
from tests.openai_server import OpenAIServer

RUBRIC = "href-overall"
# What a live run and a batch store alike; how the answer arrived (origin, timing) differs.
SAME = (
    "pair_id",
    "ord",
    "status",
    "verdicts",
    "raw_completion",
    "rubric_hash",
    "judge_model",
    "settings_hash",
    "error",
)


def cli(*args: str | Path) -> int:
    return main([str(a) for a in args])


def judged_project(tmp_path: Path, name: str, n: int = 3) -> Path:
    path = new_project(tmp_path, name)
    add_pairs(
        path,
        [
            PairContent(f"ITEM{i}: which?", f"WINNER {i}", f"LOSER {i}", reference="ref")
            for i in range(n)
        ],
    )
    return path


def judge_answer(text: str) -> str:
    """The judge's answer to a prompt, the same whichever way the prompt arrives: pair 0
    is read right, pair 1 always says A (so its swap flips), pair 2 says nothing usable."""
    if "ITEM2:" in text:
        return "I cannot decide"
    if "ITEM1:" in text:
        return "A"
    return "A" if text.index("WINNER") < text.index("LOSER") else "B"


def live_answer(request: dict[str, Any]) -> str:
    return judge_answer(request["messages"][-1]["content"])


def target(server: OpenAIServer) -> list[str]:
    return ["--rubric", RUBRIC, "--base-url", server.base_url, "--model", MODEL, "--swap"]


def stored(path: Path) -> list[tuple[Any, ...]]:
    with open_project(path) as store:
        return [tuple(r[k] for k in SAME) for r in results(store)]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def chat_completion(content: str, *, vllm: bool = False) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    choice: dict[str, Any] = {
        "index": 0,
        "message": message,
        "logprobs": None,
        "finish_reason": "stop",
    }
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [choice],
        "usage": {"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51},
    }
    if vllm:  # what vLLM's batch runner adds to OpenAI's shape
        message.update(tool_calls=[], reasoning_content=None)
        choice.update(stop_reason=None, token_ids=None)
        body.update(
            prompt_logprobs=None,
            kv_transfer_params=None,
            service_tier=None,
            system_fingerprint=None,
        )
        body["usage"]["prompt_tokens_details"] = None
    return body


def vllm_line(custom_id: str, content: str) -> dict[str, Any]:
    """A line of ``vllm run-batch``'s output file for an answered request."""
    response = {
        "status_code": 200,
        "request_id": f"vllm-batch-{custom_id}",
        "body": chat_completion(content, vllm=True),
    }
    return {"id": f"vllm-{custom_id}", "custom_id": custom_id, "response": response, "error": None}


def anthropic_message(content: str) -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": content}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 1},
    }


def anthropic_line(custom_id: str, kind: str, content: str = "") -> dict[str, Any]:
    """A line of a Message Batch's results file: ``kind`` succeeded, errored, canceled or
    expired."""
    result: dict[str, Any] = {"type": kind}
    if kind == "succeeded":
        result["message"] = anthropic_message(content)
    elif kind == "errored":
        result["error"] = {
            "type": "error",
            "error": {"type": "overloaded_error", "message": "Overloaded"},
        }
    return {"custom_id": custom_id, "result": result}
