"""Answers measured once and kept in the project (m016): the figures read from the kept
measures equal the figures measured from the texts, a kept row never outlives its
answers, and measuring stops and goes on anywhere."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

from desktop.adapters.store import open_project
from desktop.adapters.store.answer_measures import kept_answers, kept_styles
from desktop.domain.answer_measures import measure
from desktop.domain.judge_biases import contains_list
from desktop.domain.style_features import answer_style
from desktop.services import answer_measuring
from desktop.services.answer_measuring import Measurer, answers_of, measure_backlog, styles_of
from desktop.services.ratings import rate_generators
from desktop.services.stats import compute_stats
from tests.test_style_control import styled_project


def _rows(path) -> int:
    with open_project(path, readonly=True) as store:
        return int(store.conn.execute("SELECT count(*) FROM answer_measures").fetchone()[0])


def _figures(path):
    """The figures that read answers' measures: stats (the judge's length and list
    biases) and the style-controlled ratings, with the process's own counts forgotten."""
    answer_measuring._COUNTED.clear()
    with open_project(path, readonly=True) as store:
        stats = [dataclasses.asdict(s) for s in compute_stats(store, resamples=50)]
        ratings = [r.style for r in rate_generators(store, rounds=0, style_control=True)]
    return stats, ratings


def test_figures_from_kept_measures_equal_those_measured_from_the_texts(tmp_path) -> None:
    path, _ = styled_project(tmp_path, verdicts=300)
    assert _rows(path) == 0
    measured_now = _figures(path)
    with open_project(path) as store:
        assert measure_backlog(store, chunk=64) == 300
        assert measure_backlog(store) == 0  # nothing left
    assert _rows(path) == 300
    from_file = _figures(path)
    assert answer_measuring._COUNTED[Measurer().tokenizer] == {}  # no text was measured
    assert from_file == measured_now
    biases = from_file[0][0]["overall"]["dimensions"][0]["biases"]
    assert biases is not None and biases["list_pairs"] > 0
    assert from_file[1][0] is not None


def test_a_measure_is_the_domains_measure_of_the_text(tmp_path) -> None:
    text = "# Title\n- **one** item\n```\n# code\n```\n1. two"
    m = measure(text, len)
    assert m.length == len(text) and m.has_list is contains_list(text)
    assert m.style == answer_style(text, len)


def test_a_kept_row_goes_with_its_pair_and_with_its_answers(tmp_path) -> None:
    path, _ = styled_project(tmp_path, verdicts=20)
    with open_project(path) as store:
        measure_backlog(store)
        ids = [r[0] for r in store.conn.execute("SELECT id FROM pairs ORDER BY id")]
        with store.transaction() as conn:
            conn.execute("DELETE FROM judge_results WHERE pair_id = ?", [ids[0]])
            conn.execute("DELETE FROM pairs WHERE id = ?", [ids[0]])
            conn.execute("UPDATE pairs SET response_b = '- a list now' WHERE id = ?", [ids[1]])
        tokenizer = Measurer().tokenizer
        left = kept_styles(store.conn, tokenizer)
        assert ids[0] not in left and ids[1] not in left and len(left) == 18
        # what a figure asks for is measured from the text it has now
        answers = answers_of(store, [ids[1]])[ids[1]]
        assert answers[1].has_list and answers[1].length == len("- a list now")
        style = styles_of(store, [ids[1]])[ids[1]]
        assert style[1] == answer_style("- a list now", Measurer()._tokens)
        assert measure_backlog(store) == 1
        assert kept_styles(store.conn, tokenizer)[ids[1]] == style
        assert kept_answers(store.conn)[ids[1]] == answers


def test_measures_written_for_texts_that_changed_since_they_were_read_are_not_kept(
    tmp_path,
) -> None:
    """The texts are read and measured outside the write: a pair changed or deleted in
    between gets no row, so a kept row always describes the answers the pair has."""
    from desktop.adapters.store.answer_measures import keep, unmeasured

    path, _ = styled_project(tmp_path, verdicts=3)
    with open_project(path) as store:
        tokenizer = Measurer().tokenizer
        rows = unmeasured(store.conn, tokenizer, 0, 10)
        with store.transaction() as conn:
            conn.execute("UPDATE pairs SET response_a = 'changed' WHERE id = ?", [rows[0][0]])
        done = [(pid, a, b, measure(a, len), measure(b, len)) for pid, a, b in rows]
        with store.transaction() as conn:
            assert keep(conn, tokenizer, done) == 2
        assert sorted(kept_styles(store.conn, tokenizer)) == [r[0] for r in rows[1:]]


def test_a_row_by_another_tokenizer_is_not_this_ones(tmp_path) -> None:
    path, _ = styled_project(tmp_path, verdicts=5)
    with open_project(path) as store:
        measure_backlog(store)
        with store.transaction() as conn:
            conn.execute("UPDATE answer_measures SET tokenizer = 'another', tokens_a = 99999")
        assert kept_styles(store.conn, Measurer().tokenizer) == {}
        assert len(kept_answers(store.conn)) == 5  # lengths and lists count no tokens
        some = styles_of(store, [1, 2])
        assert all(a[0] != 99999 for a, _ in some.values())
        assert measure_backlog(store) == 5  # measured again by this one, replacing the rows
        assert _rows(path) == 5


def test_tiebreak_index_measures_and_says_so(tmp_path) -> None:
    path, _ = styled_project(tmp_path, verdicts=30)
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "index", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "30 pairs' answers measured" in done.stdout
    assert _rows(path) == 30


def test_measuring_an_old_project_leaves_its_figures_and_is_json(tmp_path) -> None:
    """`stats --json` reads the same before and after measuring (the CLI's own view)."""
    path, _ = styled_project(tmp_path, verdicts=40)

    def stats() -> dict:
        out = subprocess.run(
            [sys.executable, "-m", "desktop", "stats", str(path), "--json"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return json.loads(out)

    before = stats()
    with open_project(path) as store:
        measure_backlog(store)
    assert stats() == before


def test_more_ids_than_one_statement_holds_are_read_whole(tmp_path) -> None:
    """1,000 pairs, half of them kept: both halves come back, a statement's worth of ids at
    a time, each equal to its text's own measures."""
    path, _ = styled_project(tmp_path, verdicts=1000)
    with open_project(path) as store:
        ids = [r[0] for r in store.conn.execute("SELECT id FROM pairs ORDER BY id")]
        texts = {
            pid: (a, b)
            for pid, a, b in store.conn.execute("SELECT id, response_a, response_b FROM pairs")
        }
        with store.transaction() as conn:
            conn.execute("DELETE FROM answer_measures")
        measure_backlog(store)
        with store.transaction() as conn:
            conn.execute("DELETE FROM answer_measures WHERE pair_id % 2 = 0")
        answer_measuring._COUNTED.clear()
        tokens = Measurer()._tokens
        styles, answers = styles_of(store, ids), answers_of(store, ids)
    assert sorted(styles) == sorted(answers) == ids
    for pid, (a, b) in texts.items():
        assert styles[pid] == (answer_style(a, tokens), answer_style(b, tokens))
        assert answers[pid] == (
            (len(a), contains_list(a)),
            (len(b), contains_list(b)),
        )
