"""A judge's biases equal AlpacaEval's own figures on the same annotations.

The reference is AlpacaEval's code, ported here unchanged in substance because the package
cannot be imported without its heavy dependencies: ``Analyzer.get_length_biases``,
``Analyzer.get_list_biases`` and "Proba. prefer 1" of ``get_metrics_evaluator`` from
tatsu-lab/alpaca_eval ``src/alpaca_eval/analyze.py`` (commit
039ccaafbb0695fc1db919baf2b77363fb82eca8), ``contains_list`` from ``src/alpaca_eval/utils.py``
(commit 03d0868ca030f3a4b5c9da02c60660be9015f990), and ``_get_longest_predictor``
(analyze.py) as a second judge. Apache-2.0.
"""

from __future__ import annotations

import json
import re

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

# ---- AlpacaEval's code (see the module docstring) -------------------------------------


def alpaca_contains_list(text):
    bullet_point_pattern = r"(\s*•\s*|\s*\*\s*)(\w+)"
    number_list_pattern = r"(\s*\d+\.|\s*\d+\))\s*(\w+)"
    alpha_list_pattern = r"(\s*[a-zA-Z]\.|\s*[a-zA-Z]\))\s*(\w+)"
    dash_list_pattern = r"(\s*-\s*)(\w+)"
    patterns = [bullet_point_pattern, number_list_pattern, alpha_list_pattern, dash_list_pattern]
    return any(re.search(pattern, text) for pattern in patterns)


def alpaca_length_bias(annotations, significant_delta_length=30):
    df = annotations.drop_duplicates(subset=KEYS).copy()
    df["best_output"] = np.where(
        df["preference"].between(1, 1.5, inclusive="left"), df.output_1, df.output_2
    )
    df["worse_output"] = np.where(
        df["preference"].between(1.5, 2, inclusive="right"), df.output_1, df.output_2
    )
    df["best_output_length"] = df["best_output"].apply(len)
    df["worse_output_length"] = df["worse_output"].apply(len)
    df["one_is_longer"] = (
        df["best_output_length"] - df["worse_output_length"]
    ).abs() > significant_delta_length
    df["is_prefer_longer"] = df["best_output_length"] > df["worse_output_length"]
    prefer_longer = df[df["one_is_longer"] & df["is_prefer_longer"]].shape[0]
    total_one_is_longer = df[df["one_is_longer"]].shape[0]
    return prefer_longer / total_one_is_longer


def alpaca_list_bias(annotations):
    df = annotations.drop_duplicates(subset=KEYS).copy()
    df["best_output"] = np.where(
        df["preference"].between(1, 1.5, inclusive="left"), df.output_1, df.output_2
    )
    df["worse_output"] = np.where(
        df["preference"].between(1.5, 2, inclusive="right"), df.output_1, df.output_2
    )
    df["is_best_list"] = df["best_output"].apply(alpaca_contains_list)
    df["is_worse_list"] = df["worse_output"].apply(alpaca_contains_list)
    df["either_list"] = df["is_best_list"] ^ df["is_worse_list"]
    prefer_best_either_list = df[(df["either_list"]) & df["is_best_list"]].shape[0]
    total_either_list = df[df["either_list"]].shape[0]
    return prefer_best_either_list / total_either_list


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


@given(st.text(alphabet="aZ9٣_.)-*• \n\té", max_size=30))
def test_list_detection_equals_alpaca_eval_on_any_text(text: str) -> None:
    assert contains_list(text) == alpaca_contains_list(text)


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
