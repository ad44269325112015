"""Builders shared by the judge engine's tests: rubrics, projects with pairs, fast profiles."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import Any

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import insert_rows
from desktop.adapters.store.project import ProjectStore
from desktop.domain.pairs import PairContent
from desktop.domain.profiles import ModelProfile
from desktop.domain.rubric import AnswerFormat, AnswerKind, Decoding, Message, Rubric
from desktop.services.judging import JobOptions, JudgeJob
from tests.helpers import new_project, pair_row
from tests.openai_server import GENERATION_PATHS, OpenAIServer, RecordedRequest

MODEL = "test-model"
# An answer the built-in just-eval rubric reads (it needs no reference in the pairs).
JUST_EVAL_ANSWER = (
    '{"rationale": "r", "choices": {"engagement": "A", "clarity": "A", "helpfulness": "B",'
    ' "factuality": "A", "depth": "tie", "safety": "A"}}'
)
_USER = (
    "Question: {{ instruction }}\n<response>{{ response_a }}</response>\n"
    "<response>{{ response_b }}</response>\nWhich is better?"
)


def rubric(name: str, kind: AnswerKind, dimensions: tuple[str, ...], **answer: Any) -> Rubric:
    return Rubric(
        name=name,
        title=name,
        description="a rubric for tests",
        dimensions=dimensions,
        answer=AnswerFormat(kind, **answer),
        messages=(Message("system", "You judge responses."), Message("user", _USER)),
        decoding=Decoding(temperature=0.0, max_tokens=64),
    )


SINGLE = rubric("t-single", AnswerKind.SINGLE, ("overall",))
COMMA = rubric("t-comma", AnswerKind.COMMA_LIST, ("precision", "overall"))
JSON_CHOICES = rubric(
    "t-json", AnswerKind.JSON_CHOICES, ("clarity", "depth"), reason_key="rationale"
)


def pairs(n: int) -> list[PairContent]:
    return [
        PairContent(
            instruction=f"question {i}", response_a=f"GOOD answer {i}", response_b=f"bad {i}"
        )
        for i in range(1, n + 1)
    ]


def add_pairs(path: Path, items: list[PairContent]) -> None:
    with open_project(path) as store, store.transaction():
        insert_rows(store.conn, [pair_row(p) for p in items])


def project(tmp_path: Path, n: int = 3, name: str = "p.tiebreak") -> Path:
    path = new_project(tmp_path, name)
    add_pairs(path, pairs(n))
    return path


def profile(server_or_url: OpenAIServer | str, **changes: Any) -> ModelProfile:
    """A profile with short deadlines, so failure paths take milliseconds."""
    url = server_or_url if isinstance(server_or_url, str) else server_or_url.base_url
    settings: dict[str, Any] = {
        "name": "test",
        "model": MODEL,
        "base_url": url,
        "timeout": 2.0,
        "max_retries": 2,
        "concurrency": 1,
        "needs_key": False,
    }
    settings.update(changes)
    return ModelProfile(**settings)


def make_job(
    store: ProjectStore,
    server_or_url: OpenAIServer | str,
    rubric: Rubric = SINGLE,
    *,
    api_key: str | None = "sk-test",
    backoff: float = 0.01,
    options: dict[str, Any] | None = None,
    **profile_changes: Any,
) -> JudgeJob:
    p = profile(server_or_url, **profile_changes)
    assert p.base_url is not None
    return JudgeJob(
        store,
        rubric,
        p,
        base_url=p.base_url,
        api_key=api_key,
        options=JobOptions(backoff=backoff, **(options or {})),
    )


def results(store: ProjectStore) -> list[dict[str, Any]]:
    cursor = store.conn.execute("SELECT * FROM judge_results ORDER BY pair_id, ord")
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, row, strict=True)) for row in cursor]
    for row in rows:
        for key in ("verdicts", "confidence"):
            row[key] = json.loads(row[key]) if row[key] else None
    return rows


def generations(server: OpenAIServer) -> list[RecordedRequest]:
    return [r for r in server.requests if r.path in GENERATION_PATHS]


def closed_port_url() -> str:
    """A loopback URL where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def responses_in(request_json: dict[str, Any]) -> list[str]:
    """The two responses as the judge saw them, in the order shown."""
    text = request_json["messages"][-1]["content"]
    return re.findall(r"<response>(.*?)</response>", text, re.S)
