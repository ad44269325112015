"""A judge's biases equal AlpacaEval's own figures on the same annotations.

The reference is the package itself, alpaca-eval 0.6.6 (PyPI, a test extra), the release
whose list rule Tiebreak follows (``utils.contains_list`` became line-anchored in August
2024, in 0.6.6): ``Analyzer.get_length_biases`` and ``Analyzer.get_list_biases`` of
``alpaca_eval.analyze`` and its "Proba. prefer 1" (``2 - preference.mean()`` in
``get_metrics_evaluator``). ``Analyzer()`` loads its gold annotations from the network,
so the tests call those methods on an analyzer without them (they read only ``keys`` and
``annotation_key``). ``_get_longest_predictor`` (analyze.py) is copied as a second judge.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.domain.judge_biases import contains_list, judge_biases
from tests.conftest import SHARED


def pandas():
    """pandas, imported by the test that needs it (not while pytest collects: it would
    add 100 MB to every process the suite forks, which the hostile tests measure)."""
    return pytest.importorskip("pandas")


FILES = {
    "weighted-gpt4-turbo": SHARED
    / "data"
    / "alpaca_eval"
    / "claude-2.1__weighted_alpaca_eval_gpt4_turbo.annotations.json",
    "gpt4": SHARED / "data" / "alpaca_farm_ppo_human_vs_gpt4_annotations.json",
}
KEYS = ["instruction", "output_1", "output_2"]
RELEASE = "0.6.6"

# ---- AlpacaEval's code, run from its package ------------------------------------------


def _alpaca():
    """alpaca_eval's ``analyze`` and ``utils``, the release these tests name."""
    from importlib.metadata import version

    analyze = pytest.importorskip("alpaca_eval.analyze")
    utils = pytest.importorskip("alpaca_eval.utils")
    assert version("alpaca-eval") == RELEASE, "the figures follow alpaca-eval " + RELEASE
    return analyze, utils


def _analyzer():
    analyze, _ = _alpaca()
    analyzer = analyze.Analyzer.__new__(analyze.Analyzer)
    analyzer.keys = list(KEYS)
    analyzer.annotation_key = "preference"
    return analyzer


def alpaca_contains_list(text: str) -> bool:
    return bool(_alpaca()[1].contains_list(text))


def alpaca_length_bias(annotations):
    return _analyzer().get_length_biases(annotations)["probability_prefer_longer"]


def alpaca_list_bias(annotations):
    return _analyzer().get_list_biases(annotations)["probability_prefer_list"]


def alpaca_prefer_1(annotations):
    return 2 - annotations["preference"].mean()


def alpaca_longest_predictor(annotations):
    curr = annotations.copy()
    curr["annotator"] = "longest"
    curr["preference"] = np.where(curr.output_1.str.len() > curr.output_2.str.len(), 1, 2)
    return curr


# ---- the comparison --------------------------------------------------------------------


def annotations(name: str):
    path = FILES[name]
    if not path.is_file():
        pytest.skip("../shared/data is not beside this checkout")
    return pandas().DataFrame(json.loads(path.read_text()))


def ours(frame):
    rows = zip(frame.output_1, frame.output_2, frame.preference, strict=True)
    return judge_biases((a, b, None if pandas().isna(p) else float(p)) for a, b, p in rows)


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("judge", ["annotator", "longest"])
def test_biases_equal_alpaca_eval_on_its_annotations(name: str, judge: str) -> None:
    frame = annotations(name)
    if judge == "longest":
        frame = alpaca_longest_predictor(frame)
    figures = ours(frame)
    assert figures.prefer_longer == pytest.approx(alpaca_length_bias(frame), abs=1e-12)
    assert figures.prefer_lists == pytest.approx(alpaca_list_bias(frame), abs=1e-12)
    assert figures.prefer_output_1 == pytest.approx(alpaca_prefer_1(frame), abs=1e-12)
    assert figures.preferences == frame.preference.notna().sum()
    if judge == "longest":
        assert figures.prefer_longer == 1.0


def test_list_detection_equals_alpaca_eval_on_every_answer() -> None:
    frame = annotations("weighted-gpt4-turbo")
    texts = [*frame.output_1, *frame.output_2, "well-known", "e.g. this", "no list here", "• a"]
    assert [contains_list(t) for t in texts] == [alpaca_contains_list(t) for t in texts]


def test_a_list_is_a_mark_at_a_lines_start_as_in_0_6_6() -> None:
    """What changed in 0.6.6: a hyphenated word, "e.g." or a star inside a line is no list;
    a bullet, number or letter starting a line (after spaces) is."""
    prose = ["a well-known fact", "see e.g. this", "2*3 is 6", "it costs $5 (i.e. a lot)"]
    lists = ["Steps:\n1. mix", "- one", "  * two", "\n\t• three", "a) first", "B. second\nC. third"]
    assert [contains_list(t) for t in prose] == [False] * 4
    assert [contains_list(t) for t in lists] == [True] * 6
    assert [alpaca_contains_list(t) for t in prose + lists] == [False] * 4 + [True] * 6
    assert not contains_list("a.b") and not contains_list("1.\n") and not contains_list("-!?")


@given(st.text(alphabet="aZ9٣_.)-*• \n\t\r\x0b\x1c\u2028é!", max_size=30))
def test_list_detection_equals_alpaca_eval_on_any_text(text: str) -> None:
    assert contains_list(text) == alpaca_contains_list(text)


@pytest.mark.parametrize("unit", ["\n", " \n", "-\n", "\t*\t\n", "•?\n", "- !\n"])
def test_list_detection_is_linear_on_hostile_answers(unit: str) -> None:
    """A megabyte of blank lines, or of marks with no word after them, is read in time
    proportional to its length (AlpacaEval's patterns as written retry each line's rest)."""
    small, large = unit * 20_000, unit * 200_000
    started = time.perf_counter()
    assert contains_list(small) is False
    small_time = time.perf_counter() - started
    started = time.perf_counter()
    assert contains_list(large) is False
    large_time = time.perf_counter() - started
    assert large_time < 0.5 and large_time < 40 * max(small_time, 1e-4)


def test_edge_preferences_follow_alpaca_eval() -> None:
    """A tie (1.5), 0 (AlpacaEval's draw) and a missing preference count in neither share,
    but 0 enters prefer-1's mean; each case against the ported reference."""
    short, long_, listed = "yes", "a much longer answer " * 4, "Steps:\n1. first\n2. second"
    rows = [
        ("q1", short, long_, 1.5),
        ("q2", long_, short, 0),
        ("q3", short, listed, None),
        ("q4", listed, long_, 1.2),
        ("q5", long_, short + "!", 1.0),
        ("q6", listed, short, 2.0),
    ]
    frame = pandas().DataFrame(rows, columns=["instruction", "output_1", "output_2", "preference"])
    figures = ours(frame)
    assert figures.prefer_longer == pytest.approx(alpaca_length_bias(frame))
    assert figures.prefer_lists == pytest.approx(alpaca_list_bias(frame))
    assert figures.prefer_output_1 == pytest.approx(alpaca_prefer_1(frame))
    assert (figures.longer_pairs, figures.list_pairs, figures.preferences) == (2, 2, 5)


def test_nothing_to_count_is_none() -> None:
    figures = judge_biases([("same", "same", 1.0)])
    assert figures.prefer_longer is None and figures.prefer_lists is None
    assert figures.prefer_output_1 == 1.0
    assert judge_biases([]).prefer_output_1 is None
