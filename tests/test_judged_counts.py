"""An error is no answer: never counted as judged (status bar counts, pair list, figures),
and `tiebreak judge` exits 1 while pairs are left in error, 0 once every pair asked has an
answer (a parse failure is one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.services import pair_list
from desktop.services.stats import rubric_stats
from tests.judging_helpers import MODEL, SINGLE, make_job, project
from tests.openai_server import OpenAIServer, Reply


@pytest.fixture
def server():
    with OpenAIServer() as s:
        yield s


def test_an_error_is_not_judged_in_counts_list_or_figures(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 3)
    server.script(["A", Reply.error(400, "bad prompt"), "I cannot decide."])
    with open_project(path) as store:
        summary = make_job(store, server).run()
        assert (summary.progress.ok, summary.progress.errors) == (1, 1)
        assert pair_list.counts(store, SINGLE.name, MODEL) == (3, 2, 0)  # ok and parse failure
        rows = pair_list.list_rows(store, SINGLE.name, MODEL)
        assert [(r.judged, r.status) for r in rows] == [
            (True, "ok"),
            (False, "error"),
            (True, "parse-failure"),
        ]
        unjudged = pair_list.list_rows(store, SINGLE.name, MODEL, filter_name="unjudged")
        assert [r.id for r in unjudged] == [2]
        assert rubric_stats(store, SINGLE.name, MODEL).overall.judged == 2
        # Asked again, the pair gets its answer and counts.
        server.script(["B"])
        make_job(store, server).run()
        assert pair_list.counts(store, SINGLE.name, MODEL) == (3, 3, 0)


def test_a_later_error_takes_the_pairs_answer_away(tmp_path: Path, server: OpenAIServer) -> None:
    """The window shows the latest answer of each order; if that is an error, the pair has
    no verdict to show and is not judged."""
    path = project(tmp_path, 1)
    with open_project(path) as store:
        make_job(store, server).run()
        assert pair_list.counts(store, SINGLE.name, MODEL) == (1, 1, 0)
        server.script([Reply.error(400, "bad prompt")])
        make_job(store, server, temperature=0.5).run()  # other settings: a new result
        assert pair_list.counts(store, SINGLE.name, MODEL) == (1, 0, 0)
        assert pair_list.list_rows(store, SINGLE.name, MODEL)[0].judged is False


def test_judge_exits_1_while_pairs_are_left_in_error(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project(tmp_path, 3)
    args = ["judge", str(path), "--rubric", "just-eval", "--base-url", server.base_url]
    args += ["--model", MODEL]
    answer = (
        '{"rationale": "r", "choices": {"engagement": "A", "clarity": "A", "helpfulness": "A",'
        ' "factuality": "A", "depth": "A", "safety": "A"}}'
    )
    server.script([answer, Reply.error(400, "bad prompt"), "not json"])
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert "1 ok, 1 parse failures, 1 errors" in out
    assert "tiebreak: 1 left in error; the same command asks for them again" in err
    server.script([answer])  # the same command asks for the one left
    assert main(args) == 0
    out, _ = capsys.readouterr()
    assert "1 ok, 0 parse failures, 0 errors, 2 already judged" in out
