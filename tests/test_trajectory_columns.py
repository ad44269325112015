"""Each trajectory pair's steps, tool calls and tool errors on each side (issue 32,
"Judging and figures"), counted as the pair is added (``pair_steps``, m012) by the same
reading the judge's prompt gets, shown as columns of the pair list that sort and filter
only where a project holds trajectories; and the list's search finding text in tool
arguments and results on either side (``steps_search``). Real projects, the real CLI."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from sqlite_utils import Database

from desktop.adapters.store import open_project
from desktop.adapters.store.migrations import APPLICATION_ID, migrations
from desktop.adapters.store.pair_reader import PairQuery, read_pairs
from desktop.adapters.store.pairs import get_pair, new_row
from desktop.adapters.store.search_index import scan_search
from desktop.domain.conversation_comparison import pair_fields
from desktop.domain.conversations import messages, to_json
from desktop.domain.trajectory import counts_of_json, run_counts
from desktop.services.merge import merge_file
from desktop.services.pair_list import FILTERS, STEP_FILTERS, list_rows, ordering
from desktop.ui.pair_list import HEADERS, STEP_HEADERS
from tests.gui_helpers import open_window
from tests.helpers import new_project, table_digest, tiebreak, write_jsonl
from tests.test_import_inspect import runs  # noqa: F401 (the fixture: two Inspect AI logs)
from tests.trajectory_data import OPENAI_TOOLS, TRL_TOOLS, anthropic_run, openai_run, trl_run

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "agent_runs.jsonl"
RUBRIC, JUDGE = "trajectory", "test-model"


def run_records() -> list[dict[str, Any]]:
    """Four pairs: runs in three formats (one with two errors on B's side), and a chat."""
    two_errors = anthropic_run("I could not tell.", error=True)
    again = json.loads(json.dumps(two_errors[1:3]).replace("toolu_01", "toolu_02"))
    return [
        {
            "id": "paris",
            "messages_a": openai_run("It is 14°C with light rain.", calls=3, error=True),
            "messages_b": openai_run("Sunny, 30°C.", city="Lyon, France"),
            "tools": OPENAI_TOOLS,
        },
        {
            "id": "sf",
            "messages_a": anthropic_run("It is 15 degrees."),
            "messages_b": [*two_errors[:3], *again, two_errors[3]],
        },
        {
            "id": "mul",
            "messages_a": trl_run("12"),
            "messages_b": trl_run("20", 4, 5),
            "tools": TRL_TOOLS,
        },
        {
            "id": "chat",
            "messages_a": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello"},
            ],
            "messages_b": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Yo"},
            ],
        },
    ]


def imported(tmp_path: Path, rows: list[dict[str, Any]], name: str = "p.tiebreak") -> Path:
    project = new_project(tmp_path, name)
    proc = tiebreak("import", project, write_jsonl(tmp_path / f"{name}.jsonl", rows))
    assert proc.returncode == 0, proc.stderr
    return project


def counted(project: Path) -> dict[str, tuple[int, ...]]:
    with open_project(project, readonly=True) as store:
        rows = store.conn.execute(
            "SELECT p.external_id, s.steps_a, s.steps_b, s.calls_a, s.calls_b, s.errors_a,"
            " s.errors_b FROM pair_steps s JOIN pairs p ON p.id = s.pair_id"
        ).fetchall()
    return {r[0]: tuple(r[1:]) for r in rows}


def page(project: Path, **options: Any) -> list[Any]:
    with open_project(project, readonly=True) as store:
        return list_rows(store, RUBRIC, JUDGE, **options)


def ids(rows: list[Any]) -> list[str]:
    return [r.external_id for r in rows]


# ---- counted as added ------------------------------------------------------------------


def test_each_side_is_counted_as_the_judge_reads_it(tmp_path: Path) -> None:
    project = imported(tmp_path, run_records())
    assert counted(project) == {
        # steps A, B; calls A, B; errors A, B (OpenAI's results carry no error flag)
        "paris": (3, 1, 3, 1, 0, 0),
        "sf": (1, 2, 1, 2, 0, 2),
        "mul": (1, 1, 1, 1, 0, 0),
    }  # the chat is no trajectory: no row
    with open_project(project, readonly=True) as store:
        for pair_id in (1, 2, 3):
            pair = get_pair(store, pair_id)
            assert pair is not None and pair.conversation_a and pair.conversation_b
            a, b = run_counts(pair.conversation_a), run_counts(pair.conversation_b)
            assert counted(project)[str(pair.external_id)] == (
                a.steps, b.steps, a.calls, b.calls, a.errors, b.errors
            )  # fmt: skip
            steps = [m.step() for m in pair.conversation_b]
            assert sum(len(s.calls) for s in steps) == b.calls
            assert counts_of_json(to_json(pair.conversation_a)) == a
            assert counts_of_json(to_json(pair.conversation_b)) == b


def test_the_example_runs_are_counted(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    assert tiebreak("import", project, EXAMPLES).returncode == 0
    got = counted(project)
    assert len(got) == 6
    with open_project(project, readonly=True) as store:
        for pair_id in range(1, 7):
            pair = get_pair(store, pair_id)
            assert pair is not None and pair.conversation_a and pair.conversation_b
            a, b = run_counts(pair.conversation_a), run_counts(pair.conversation_b)
            assert got[str(pair.external_id)] == (
                a.steps, b.steps, a.calls, b.calls, a.errors, b.errors
            )  # fmt: skip
            assert counts_of_json(to_json(pair.conversation_a)) == a


def test_inspect_ai_messages_are_counted_alike() -> None:
    """Inspect AI's form: calls with ``function`` and ``arguments``, a tool message naming
    its ``function`` with an ``error`` object where the tool failed."""
    side = messages(
        [
            {"role": "system", "content": "Use the tools."},
            {"role": "user", "content": "List the files."},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c1", "function": "bash", "arguments": {"cmd": "ls"}}],
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "function": "bash",
                "content": "",
                "error": {"type": "timeout", "message": "Command timed out"},
            },
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c2", "function": "bash", "arguments": {"cmd": "ls -a"}}],
            },
            {
                "role": "tool",
                "tool_call_id": "c2",
                "function": "bash",
                "content": "a.txt",
                "error": None,
            },
            {"role": "assistant", "content": "One file: a.txt."},
        ]
    )
    assert run_counts(side) == counts_of_json(to_json(side))
    assert (run_counts(side).steps, run_counts(side).calls, run_counts(side).errors) == (2, 2, 1)


def test_a_project_before_the_counts_is_counted_and_searched_once_opened(tmp_path: Path) -> None:
    path = tmp_path / "older.tiebreak"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    migrations.apply(Database(conn), stop_before="m012_trajectory_steps")
    for record in run_records():
        a = messages(record["messages_a"], "conversation_a")
        b = messages(record["messages_b"], "conversation_b")
        fields = {"external_id": record["id"], **pair_fields(a, b, None, record.get("tools"))}
        row = new_row(fields, None)
        conn.execute(
            f"INSERT INTO pairs ({', '.join(row._fields)}) VALUES ({', '.join('?' * len(row))})",
            list(row),
        )
    conn.close()
    with open_project(path):  # brought up to date: m012 counts what it holds
        pass
    fresh = imported(tmp_path, run_records(), "fresh.tiebreak")
    assert counted(path) == counted(fresh)
    totals = "SELECT external_id, steps, calls, errors FROM pairs ORDER BY id"
    with open_project(path, readonly=True) as old, open_project(fresh, readonly=True) as new:
        assert old.conn.execute(totals).fetchall() == new.conn.execute(totals).fetchall()
    assert ids(page(path, order=ordering("steps", True, None))) == ["paris", "sf", "mul", "chat"]
    assert ids(page(path, search="Lyon, Fr")) == ["paris"]
    with open_project(path) as store:
        store.conn.execute(
            "INSERT INTO steps_search(steps_search, rank) VALUES ('integrity-check', 0)"
        )


def test_a_merge_counts_the_pairs_it_adds_and_adding_again_changes_nothing(tmp_path: Path) -> None:
    source = imported(tmp_path, run_records(), "source.tiebreak")
    target = new_project(tmp_path, "target.tiebreak")
    with open_project(target) as store:
        merge_file(store, source)
    assert counted(target) == counted(source)
    before = table_digest(target)
    assert tiebreak("import", target, tmp_path / "source.tiebreak.jsonl").returncode == 0
    assert table_digest(target) == before  # the same pairs: nothing counted twice


def test_a_deleted_pair_leaves_neither_its_counts_nor_its_index(tmp_path: Path) -> None:
    project = imported(tmp_path, run_records())
    with open_project(project) as store, store.transaction():
        store.conn.execute("DELETE FROM judge_results")
        store.conn.execute("DELETE FROM pairs WHERE external_id = 'paris'")
    assert set(counted(project)) == {"sf", "mul"}
    assert ids(page(project, search="Lyon, Fr")) == []
    with open_project(project) as store:
        store.conn.execute(
            "INSERT INTO steps_search(steps_search, rank) VALUES ('integrity-check', 0)"
        )


# ---- the list ----------------------------------------------------------------------------


def test_the_rows_carry_the_counts_and_sort_by_them_page_by_page(tmp_path: Path) -> None:
    project = imported(tmp_path, run_records())
    rows = page(project)
    paris = rows[0]
    assert (paris.steps_a, paris.steps_b, paris.calls_a, paris.calls_b) == (3, 1, 3, 1)
    assert (paris.errors_a, paris.errors_b) == (0, 0)
    assert rows[3].steps_a is None  # the chat
    for kind, ascending in (
        ("steps", ["chat", "mul", "sf", "paris"]),  # 6, 8, 10
        ("calls", ["chat", "mul", "sf", "paris"]),  # 2, 3, 4
        ("errors", ["chat", "paris", "mul", "sf"]),  # 0, 0, 2: ties by #, either way
    ):
        for descending in (False, True):
            want = ascending if not descending else [*reversed(ascending)]
            got: list[Any] = []
            last = None
            while True:  # two rows a page: each page read on from the last
                order = ordering(kind, descending, last)
                more = page(project, order=order, limit=2)
                got += more
                if len(more) < 2:
                    break
                last = more[-1]
            assert ids(got) == want, (kind, descending)


def test_the_filters_by_what_the_tools_did(tmp_path: Path) -> None:
    project = imported(tmp_path, run_records())
    assert STEP_FILTERS == ("tool-errors", "tool-errors-a", "tool-errors-b", "no-tool-calls")
    assert ids(page(project, filter_name="tool-errors")) == ["sf"]
    assert ids(page(project, filter_name="tool-errors-b")) == ["sf"]
    assert ids(page(project, filter_name="tool-errors-a")) == []
    assert ids(page(project, filter_name="no-tool-calls")) == []
    assert ids(page(project, filter_name="tool-errors", search="degrees")) == ["sf"]


def test_the_search_finds_tool_arguments_and_results_on_either_side(tmp_path: Path) -> None:
    project = imported(tmp_path, run_records())
    cases = {
        "Lyon, France": ["paris"],  # B's argument (OpenAI's JSON string)
        "lyon": ["paris"],  # A to Z in either case, as ever
        '"location": "Lyon': ["paris"],  # as the arguments read (JSON text escapes quotes)
        "°C": ["paris"],  # two characters: every pair read
        "service unavailable": ["paris"],  # A's result
        "weather service is down": ["sf"],  # B's error result (Anthropic's blocks)
        "celsius": ["sf"],  # an argument's value
        "multiply": ["mul"],  # a tool's name
        "20": ["mul"],  # a result: two characters, every pair read
        "Hello": ["chat"],  # the compared answer, as before
        "get_weather": ["paris", "sf"],
        "tool_call_id": [],  # a member's name is no text of the run
        "function": [],  # nor a member's value that says what it is (a call's type)
    }
    with open_project(project, readonly=True) as store:
        query = PairQuery(columns=("id", "external_id"))
        for text, want in cases.items():
            assert ids(page(project, search=text)) == want, text
            scanned = read_pairs(store, query, where=scan_search(text, steps=True))
            assert [r.fields.external_id for r in scanned] == want, text
            plain = read_pairs(store, query, where=scan_search(text))
            assert len(list(plain)) <= len(want)


def test_a_project_without_trajectories_lists_and_searches_as_before(tmp_path: Path) -> None:
    rows = [
        {"id": f"x{i}", "instruction": f"q{i}", "response_a": "get_weather", "response_b": "b"}
        for i in range(3)
    ]
    project = imported(tmp_path, rows)
    listed = page(project)
    assert [r.steps_a for r in listed] == [None] * 3
    assert ids(page(project, search="get_weather")) == ["x0", "x1", "x2"]
    assert counted(project) == {}


# ---- the window ------------------------------------------------------------------------


def _titles(win: Any) -> list[str]:
    header = win.pairs.table.horizontalHeader()
    return [header.model().headerData(i, Qt.Orientation.Horizontal) for i in range(header.count())]


def _click_title(win: Any, column: int) -> None:
    header = win.pairs.table.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))


def _listed(win: Any) -> list[str]:
    model = win.pairs.model
    return [model.row_at(i).external_id for i in range(model.rowCount())]


def test_the_window_shows_sorts_and_filters_by_the_counts(qtbot, tmp_path: Path, server) -> None:
    project = imported(tmp_path, run_records())
    win = open_window(qtbot, project, server)
    try:
        assert _titles(win) == ["#", "id", "category", *STEP_HEADERS, "status"]
        model = win.pairs.model
        assert model.data(model.index(0, 3)) == "3 · 1"  # steps A · B
        assert model.data(model.index(0, 4)) == "3 · 1"
        assert model.data(model.index(1, 5)) == "0 · 2"  # sf: B's tools erred twice
        assert model.data(model.index(3, 3)) == ""  # the chat
        assert "side A · side B" in model.data(model.index(0, 3), Qt.ItemDataRole.ToolTipRole)
        _click_title(win, 3)  # steps
        qtbot.waitUntil(lambda: _listed(win) == ["chat", "mul", "sf", "paris"])
        _click_title(win, 3)
        qtbot.waitUntil(lambda: _listed(win) == ["paris", "sf", "mul", "chat"])
        _click_title(win, 6)  # the status: not a sort, and said so
        assert _listed(win) == ["paris", "sf", "mul", "chat"]
        box = win.pairs.filter
        offered = [box.itemText(i) for i in range(box.count())]
        assert offered == [*FILTERS, *STEP_FILTERS]
        box.setCurrentIndex(offered.index("tool-errors"))
        qtbot.waitUntil(lambda: _listed(win) == ["sf"])
        win.pairs.search.setText("Lyon")
        win.pairs.new_query()
        box.setCurrentIndex(0)
        qtbot.waitUntil(lambda: _listed(win) == ["paris"])
    finally:
        win.context.runner.shutdown()


def test_the_window_of_a_project_without_trajectories_has_no_such_columns(
    qtbot, project: Path, server
) -> None:
    win = open_window(qtbot, project, server)
    try:
        assert _titles(win) == list(HEADERS)
        box = win.pairs.filter
        assert [box.itemText(i) for i in range(box.count())] == list(FILTERS)
    finally:
        win.context.runner.shutdown()


def test_trajectories_dropped_on_an_open_window_bring_the_columns(
    qtbot, project: Path, server, tmp_path: Path
) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    win = open_window(qtbot, project, server)
    try:
        assert _titles(win) == list(HEADERS)
        dropped = shutil.copy(EXAMPLES, tmp_path / "runs.jsonl")
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(dropped))])
        event = QDropEvent(
            QPointF(20, 20),
            Qt.DropAction.CopyAction,
            mime,
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
        )
        win.dropEvent(event)
        qtbot.waitUntil(lambda: win.pairs.model.rowCount() == 12, timeout=10_000)
        assert _titles(win) == ["#", "id", "category", *STEP_HEADERS, "status"]
        assert win.pairs.model.data(win.pairs.model.index(0, 3)) == ""  # a plain pair
        assert win.pairs.model.data(win.pairs.model.index(6, 3)) != ""
    finally:
        win.context.runner.shutdown()


def test_two_inspect_ai_logs_are_counted_as_they_are_imported(
    runs: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    project = new_project(tmp_path)
    run = tiebreak("import", project, "--runs", runs / "a.eval", runs / "b.json")
    assert run.returncode == 0, run.stderr
    got = counted(project)
    assert len(got) == 4
    with open_project(project, readonly=True) as store:
        for pair_id in range(1, 5):
            pair = get_pair(store, pair_id)
            assert pair is not None and pair.conversation_a and pair.conversation_b
            a, b = run_counts(pair.conversation_a), run_counts(pair.conversation_b)
            assert got[str(pair.external_id)] == (
                a.steps, b.steps, a.calls, b.calls, a.errors, b.errors
            )  # fmt: skip
            assert a.calls > 0 and b.calls > 0
    assert ids(page(project, search="divide"))  # a tool's text, found in the runs
