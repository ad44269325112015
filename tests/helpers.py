"""Small builders shared by tests: project files with real data, table dumps."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import PairRow, new_row
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import insert_results, result_row
from desktop.domain.conversations import Message as ChatMessage
from desktop.domain.conversations import to_json
from desktop.domain.pairs import STORED_FIELDS, PairContent
from desktop.domain.render import sample_pair
from desktop.domain.results import JudgeResult
from desktop.domain.rubric import AnswerFormat, AnswerKind, Message, Rubric


def tiebreak(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line, run as a child process."""
    return subprocess.run(
        [sys.executable, "-m", "desktop", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def pair_row(pair: PairContent) -> PairRow:
    """A pair as a prepared pairs row (for ``insert_rows``), keyed as an import keys it."""
    metadata = json.dumps(pair.metadata, ensure_ascii=False) if pair.metadata else None
    fields: dict[str, str | int | None] = {f: getattr(pair, f) for f in STORED_FIELDS}
    if pair.conversation_a is not None and pair.conversation_b is not None:
        fields["conversation_a"] = to_json(pair.conversation_a)
        fields["conversation_b"] = to_json(pair.conversation_b)
    return new_row(fields, metadata)


def save_result(store: ProjectStore, result: JudgeResult) -> None:
    """One judge's answer written into a project, as a job writes it."""
    with store.transaction():
        insert_results(store.conn, [result_row(result)])


def new_project(tmp_path: Path, name: str = "p.tiebreak") -> Path:
    path = tmp_path / name
    open_project(path, create=True).close()
    return path


def table_digest(path: Path) -> str:
    """A digest of every row of every table, to prove a failed operation changed nothing."""
    with open_project(path, readonly=True) as store:
        return store_digest(store)


def store_digest(store: ProjectStore) -> str:
    digest = hashlib.sha256()
    for table in sorted(store.db.table_names()):
        # The search index's shadow tables include one WITHOUT ROWID: by its key.
        order = "1" if "WITHOUT ROWID" in (store.db[table].schema or "").upper() else "rowid"
        for row in store.conn.execute(f"SELECT * FROM [{table}] ORDER BY {order}"):
            digest.update(json.dumps(row, default=str).encode())
    return digest.hexdigest()


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def export_rows(path: Path, out: Path, **options: Any) -> list[dict[str, str]]:
    """The project exported to CSV through the service, read back as rows."""
    from desktop.services.exporting import export_project

    with open_project(path, readonly=True) as store:
        export_project(store, out, **options)
    with out.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@contextmanager
def write_lock_held(path: Path, *, seconds: float = 60, commit: bool = False) -> Iterator[None]:
    """Another process in a write transaction on ``path`` (an uncommitted settings row),
    for ``seconds`` (then it commits, with ``commit``, or is killed at the block's end)."""
    end = "c.execute('COMMIT')" if commit else "pass"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, time\n"
            f"c = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE')\n"
            "c.execute(\"INSERT INTO settings VALUES ('held', '1')\")\n"
            f"print('holding', flush=True); time.sleep({seconds}); {end}\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        yield
    finally:
        if not commit:
            holder.kill()
        holder.wait(timeout=60)


def user_rubric(content: str, role: str = "user") -> Rubric:
    """A one-message rubric with one dimension, as a user might write it."""
    return Rubric(
        name="user-rubric",
        title="User rubric",
        description="",
        dimensions=("overall",),
        answer=AnswerFormat(AnswerKind.SINGLE),
        messages=(Message(role, content),),
    )


def at_turn_of(rubric: Rubric, pair: PairContent) -> PairContent:
    """``pair`` as the last turn of a conversation as long as the rubric reads (MT-bench's
    two-turn judges read turn 2), earlier turns taken from ``sample_pair``."""
    sample = sample_pair(rubric)
    if sample.turn is None or sample.conversation_a is None or sample.conversation_b is None:
        return pair
    if sample.tools is not None:  # a rubric of agent runs: a pair is a run of one step
        return pair
    asked = ChatMessage("user", pair.instruction)
    return PairContent(
        pair.instruction,
        pair.response_a,
        pair.response_b,
        reference=pair.reference,
        source=pair.source,
        conversation_a=(
            *sample.conversation_a[:-2],
            asked,
            ChatMessage("assistant", pair.response_a),
        ),
        conversation_b=(
            *sample.conversation_b[:-2],
            asked,
            ChatMessage("assistant", pair.response_b),
        ),
        turn=sample.turn,
        metadata={"reference_turns": [*sample.metadata["reference_turns"][:-1], pair.reference]},
    )
