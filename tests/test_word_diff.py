"""The words that differ between A and B (desktop/domain/word_diff.py): what is marked,
and that the marked and unmarked parts put back together are A and B exactly, on real
AlpacaEval pairs and on hostile text."""

from __future__ import annotations

import json
import random
import time
from itertools import pairwise
from pathlib import Path

import pytest

from desktop.domain.word_diff import Diff, quick_diff, word_diff

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ALPACA = DATA / "alpaca_farm_ppo_human_vs_gpt4_annotations.json"


def marked(text: str, diff: Diff, side: str) -> list[str]:
    return [text[s:e] for s, e in diff.changes(side)]


def assert_whole(a: str, b: str, diff: Diff) -> None:
    for text, segments in ((a, diff.a), (b, diff.b)):
        assert "".join(text[s.start : s.end] for s in segments) == text
        assert all(s.start < s.end for s in segments) or text == ""
        assert all(x.end == y.start for x, y in pairwise(segments))


def test_a_number_that_differs_by_one_digit_is_marked_whole() -> None:
    a, b = "The total comes to €48.55 in all.", "The total comes to €48.45 in all."
    diff = word_diff(a, b)
    assert marked(a, diff, "a") == ["48.55"]
    assert marked(b, diff, "b") == ["48.45"]


def test_common_words_are_not_marked_and_changed_runs_are_one_mark() -> None:
    a = "Paris is the capital of France and its largest city."
    b = "Lyon is the capital of France and its third city."
    diff = word_diff(a, b)
    assert marked(a, diff, "a") == ["Paris", "largest"]
    assert marked(b, diff, "b") == ["Lyon", "third"]
    a, b = "It takes two hours by train.", "It takes about three hours by fast train."
    diff = word_diff(a, b)
    assert marked(a, diff, "a") == ["two"]
    assert marked(b, diff, "b") == ["about three", "fast"]


def test_a_sentence_that_only_moved_is_not_marked() -> None:
    a = "Preheat the oven to 200 degrees. Mix the flour and sugar. Bake for 20 minutes."
    b = "Mix the flour and sugar. Preheat the oven to 200 degrees. Bake for 25 minutes."
    diff = word_diff(a, b)
    assert marked(a, diff, "a") == ["20"]
    assert marked(b, diff, "b") == ["25"]


def test_swapped_numbers_are_differences_not_moves() -> None:
    a, b = "The answer is 5, not 7.", "The answer is 7, not 5."
    diff = word_diff(a, b)
    assert marked(a, diff, "a") == ["5", "7"]
    assert marked(b, diff, "b") == ["7", "5"]


def test_whitespace_alone_is_no_difference() -> None:
    a, b = "one two\r\nthree", "one  two\nthree\n"
    diff = word_diff(a, b)
    assert diff.changes("a") == [] and diff.changes("b") == []
    assert_whole(a, b, diff)


def _hostile(rng: random.Random) -> str:
    pieces = [
        "word",
        "€48.55",
        "😀",
        "👩‍👩‍👧",
        "\r\n",
        "\x00",
        "\x1b[31m",
        "\u202e",
        "\u200b",
        "\t",
        "don't",
        "1,000",
        "a" * rng.randint(1, 5000),
        "!?" * rng.randint(1, 300),
        "**bold**",
        "<script>",
        " ",
        "\n\n",
        "—",
        "\ud800",  # a lone surrogate, as a decoded file may hold
    ]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 60)))


def test_marked_spans_put_back_together_give_a_and_b_on_hostile_text() -> None:
    rng = random.Random(22)
    for _ in range(400):
        a, b = _hostile(rng), _hostile(rng)
        if rng.random() < 0.5:  # often mostly the same text, as real pairs are
            b = a[: len(a) // 2] + b[: len(b) // 3] + a[len(a) // 2 :]
        assert_whole(a, b, word_diff(a, b))
    assert_whole("", "", word_diff("", ""))
    assert_whole("x", "", word_diff("x", ""))


def test_two_long_texts_of_the_same_few_words_take_bounded_time() -> None:
    a = "a b " * 40_000 + "end"
    b = "b a " * 40_000 + "finish"
    started = time.process_time()
    diff = word_diff(a, b)
    assert time.process_time() - started < 5
    assert_whole(a, b, diff)
    assert diff.whole and diff.changes("a")
    one_run = "x" * 2_000_000
    diff = word_diff(one_run, one_run + "y")
    assert diff.changes("a") == [(0, 2_000_000)]  # one word that differs


@pytest.mark.skipif(not ALPACA.exists(), reason="needs ../shared/data (CI has it)")
def test_marked_spans_put_back_together_give_a_and_b_on_alpaca_eval_pairs() -> None:
    records = json.loads(ALPACA.read_text(encoding="utf-8"))
    rng = random.Random(805)
    for record in (
        rng.sample(records, 200)
        + sorted(records, key=lambda r: -len(r["output_1"] + r["output_2"]))[:5]
    ):
        a, b = record["output_1"], record["output_2"]
        diff = word_diff(a, b)
        assert_whole(a, b, diff)
        assert not diff.whole
        if a != b:
            assert diff.changes("a") or diff.changes("b")


def _few_words(n: int, seed: int, words: tuple[str, ...] = ("the", "cat", "sat", "on", "mat")):
    rng = random.Random(seed)
    return " ".join(rng.choice(words) for _ in range(n // 3))[:n]


@pytest.mark.parametrize("n", [7_800, 16_000, 100_000])
def test_texts_of_a_few_words_in_no_order_take_bounded_work(n: int) -> None:
    """The old estimate let two 7,800-character texts of five words through to 0.7 s of
    matching: the work is now counted as it is done."""
    a, b = _few_words(n, 1), _few_words(n, 2)
    started = time.process_time()
    diff = word_diff(a, b)
    assert time.process_time() - started < 0.5
    assert_whole(a, b, diff)
    assert diff.whole
    started = time.process_time()
    assert quick_diff(a, b) is None  # too costly for the window's own thread, said quickly
    assert time.process_time() - started < 0.1


def test_past_the_budget_words_found_once_on_each_side_still_anchor_the_marks() -> None:
    """Patience diff's anchors: a text of 2,600 numbered items whose every other word
    differs is marked word by word, not as one block, though the matcher's work for it
    is past what it may spend."""
    a = " ".join(f"w{i} a" for i in range(2_600))
    b = " ".join(f"w{i} b" for i in range(2_600))
    diff = word_diff(a, b, budget=20_000)
    assert not diff.whole
    assert marked(a, diff, "a") == ["a"] * 2_600
    assert marked(b, diff, "b") == ["b"] * 2_600
    assert_whole(a, b, diff)


def test_quick_diff_gives_the_same_marks_as_word_diff_within_its_budget() -> None:
    a, b = "The total comes to €48.55 in all.", "The total comes to €48.45 in all."
    assert quick_diff(a, b) == word_diff(a, b)
