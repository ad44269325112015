"""Answer a Tiebreak batch file with a Ray Data job, for `tiebreak batch import`.

    tiebreak batch export reviews.tiebreak --rubric href-four requests.jsonl \\
        --base-url http://vllm-head:8000/v1 --model Qwen/Qwen2.5-7B-Instruct
    python examples/ray_batch.py requests.jsonl results.jsonl \\
        --base-url http://vllm-head:8000/v1 --concurrency 32
    tiebreak batch import reviews.tiebreak results.jsonl

Each line of ``requests.jsonl`` (OpenAI's Batch input shape) is sent to an
OpenAI-compatible server (``vllm serve``, a Ray Serve deployment, any provider) and
answered with a line of OpenAI's and vLLM's output shape. The work per line is the plain
functions below, run without Ray by ``--local`` and by Tiebreak's tests; Ray only spreads
the lines over its workers. Ray is needed for the Ray run alone: ``pip install 'ray[data]'``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

# (the line's url, its body) -> (HTTP status, the reply's JSON)
Post = Callable[[str, dict[str, Any]], tuple[int, dict[str, Any]]]
RETRIED = (429, 500, 502, 503, 504)


def http_post(
    base_url: str, api_key: str | None = None, *, timeout: float = 600.0, attempts: int = 3
) -> Post:
    """A Post to the server at ``base_url`` (``http://host:8000/v1``); a 429, a 5xx or a
    lost connection is tried again, ``attempts`` times in all."""
    root = base_url.rstrip("/").removesuffix("/v1")
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"

    def post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        data = json.dumps(body).encode("utf-8")
        for attempt in range(1, attempts + 1):
            request = urllib.request.Request(root + url, data=data, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=timeout) as reply:
                    return reply.status, _json(reply.read())
            except urllib.error.HTTPError as exc:
                status, said = exc.code, _json(exc.read())
                if status not in RETRIED or attempt == attempts:
                    return status, said
            except OSError:  # refused, reset, timed out
                if attempt == attempts:
                    raise
            time.sleep(min(2.0**attempt, 30.0))
        raise AssertionError("unreachable")

    return post


def _json(raw: bytes) -> dict[str, Any]:
    try:
        said = json.loads(raw)
    except ValueError:
        said = None
    if isinstance(said, dict):
        return said
    text = raw.decode("utf-8", "replace")[:300]
    return {"error": {"message": f"not a JSON object: {text!r}"}}


def answer_line(line: str, post: Post) -> str:
    """One request line in, its output line out (vLLM's shape: ``id``, ``custom_id``,
    ``response`` with ``status_code`` and ``body``, or an ``error``). A request the server
    refuses or never answers is an error line, so one bad request does not stop the job."""
    request = json.loads(line)
    custom_id = request["custom_id"]
    if "body" not in request or "url" not in request:
        raise ValueError(f"{custom_id}: not an OpenAI Batch request line (no url and body)")
    try:
        status, body = post(request["url"], request["body"])
    except OSError as exc:
        error = {"message": f"{type(exc).__name__}: {exc}", "code": None}
        return json.dumps(
            {"id": f"ray-{custom_id}", "custom_id": custom_id, "response": None, "error": error}
        )
    ok = status == 200
    out = {
        "id": f"ray-{custom_id}",
        "custom_id": custom_id,
        "response": {"status_code": status, "request_id": f"ray-{custom_id}", "body": body},
        "error": None if ok else body.get("error") or {"message": f"status {status}"},
    }
    return json.dumps(out, ensure_ascii=False)


def answer_lines(lines: Iterable[str], post: Post) -> Iterator[str]:
    for line in lines:
        if line.strip():
            yield answer_line(line, post)


def run_local(source: Path, out: Path, post: Post) -> int:
    """The job on this machine, one line after the other; how many lines were written."""
    written = 0
    with source.open(encoding="utf-8") as lines, out.open("w", encoding="utf-8") as fh:
        for answered in answer_lines(lines, post):
            fh.write(answered + "\n")
            written += 1
    return written


def run_ray(source: Path, out: Path, post: Post, *, concurrency: int) -> int:
    """The job on a Ray cluster: the lines spread over ``concurrency`` workers, the answers
    streamed back to one file here, where ``tiebreak batch import`` reads it."""
    try:
        import ray.data
    except ImportError:
        raise SystemExit(
            "ray_batch.py: Ray is not installed (pip install 'ray[data]'); --local runs"
            " the same job on this machine"
        ) from None

    def answer(row: dict[str, Any]) -> dict[str, Any]:
        return {"text": answer_line(row["text"], post)}

    lines = ray.data.read_text(str(source)).map(answer, concurrency=concurrency)
    written = 0
    with out.open("w", encoding="utf-8") as fh:
        for row in lines.iter_rows():
            fh.write(row["text"] + "\n")
            written += 1
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requests", type=Path, help="the file `tiebreak batch export` wrote")
    parser.add_argument("results", type=Path, help="where to write the output lines")
    parser.add_argument("--base-url", required=True, help="e.g. http://vllm-head:8000/v1")
    parser.add_argument("--api-key", help="sent as a bearer token, if the server wants one")
    parser.add_argument("--concurrency", type=int, default=8, help="Ray workers")
    parser.add_argument("--local", action="store_true", help="run here, without Ray")
    args = parser.parse_args(argv)
    post = http_post(args.base_url, args.api_key)
    if args.local:
        written = run_local(args.requests, args.results, post)
    else:
        written = run_ray(args.requests, args.results, post, concurrency=args.concurrency)
    print(f"{args.results}: {written:,} answers", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
