"""How several judges combine per dimension (``domain.jury``), checked on records
made by hand: majority with a tie when split evenly, and the mean of the jurors' B scores
(a fractional preference counting for what it says); Fleiss' kappa across jurors equal to
statsmodels'."""

from __future__ import annotations

import random

import numpy as np
import pytest

from desktop.domain.judge_policy import SingleJudge, policy_for
from desktop.domain.jury import Majority, MeanScore, jury_kappa
from desktop.domain.pair_record import JudgeAnswer, PairRecord
from desktop.domain.pair_view import PairView
from desktop.domain.verdicts import Verdict

A, B, TIE = Verdict.A, Verdict.B, Verdict.TIE


def answer(judge: str, verdict: Verdict | None, *, order: str = "AB", **extra) -> JudgeAnswer:
    return JudgeAnswer(
        judge=judge,
        order=order,
        status=extra.pop("status", "ok"),
        verdicts={"overall": verdict} if verdict else {},
        confidence=extra.pop("confidence", {}),
        preference=extra.pop("preference", {}),
    )


def record(*answers: JudgeAnswer) -> PairRecord:
    return PairRecord(None, answers)


@pytest.mark.parametrize(
    ("votes", "verdict", "share"),
    [
        ((A, A, B), A, 2 / 3),
        ((A, B), TIE, 0.0),  # split evenly, and nobody said tie
        ((A, TIE), TIE, 0.5),
        ((A, A, B, B, TIE), TIE, 0.2),
        ((B,), B, 1.0),
    ],
)
def test_majority(votes: tuple[Verdict, ...], verdict: Verdict, share: float) -> None:
    jurors = tuple(f"j{i}" for i in range(len(votes)))
    answers = [answer(j, v) for j, v in zip(jurors, votes, strict=True)]
    got = Majority(jurors).rule(record(*answers)).verdict("overall")
    assert (got.verdict, got.confidence, got.consistent) == (verdict, pytest.approx(share), None)


def test_a_juror_without_a_verdict_does_not_vote() -> None:
    jury = Majority(("a", "b", "c"))
    ruling = jury.rule(record(answer("a", B), answer("b", None, status="error")))
    assert ruling.verdict("overall").verdict is B
    assert (ruling.status, ruling.judged) == ("error", True)
    nobody = jury.rule(record(answer("a", None, status="error")))
    assert nobody.verdict("overall").verdict is None and not nobody.judged


def test_a_juror_who_flips_between_orders_votes_tie_and_marks_the_jury() -> None:
    flips = (answer("a", A), answer("a", B, order="BA"), answer("b", A), answer("c", A))
    got = Majority(("a", "b", "c")).rule(record(*flips)).verdict("overall")
    assert (got.verdict, got.consistent) == (A, False)


def test_mean_score_counts_a_fractional_preference_for_what_it_says() -> None:
    jury = MeanScore(("a", "b"))
    given = record(
        answer("a", B, preference={"overall": 1.9}), answer("b", A, preference={"overall": 1.2})
    )
    ruling = jury.rule(given)
    assert ruling.verdict("overall").verdict is B  # (0.9 + 0.2) / 2 = 0.55
    assert ruling.preference("overall") == pytest.approx(1.55)
    level = jury.rule(record(answer("a", A), answer("b", B)))
    assert (level.verdict("overall").verdict, level.preference("overall")) == (TIE, 1.5)


def test_one_judge_is_the_single_judge_policy() -> None:
    assert policy_for("m") == SingleJudge("m")
    assert policy_for(None).judges == ()
    view = PairView(record(answer("m", A, confidence={"overall": 0.8})), policy_for("m"))
    assert view.dimension("overall") == (A, 0.8, None, None, A)
    assert view.preference("overall") == 1.0


@pytest.mark.parametrize("seed", range(4))
def test_kappa_across_jurors_equals_statsmodels(seed: int) -> None:
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = random.Random(seed)
    jurors = tuple(f"j{i}" for i in range(rng.choice([3, 4, 5])))
    rulings = []
    for _ in range(200):
        truth = rng.choice([A, B, TIE])
        votes = [truth if rng.random() < 0.6 else rng.choice([A, B, TIE]) for _ in jurors]
        answers = [answer(j, v) for j, v in zip(jurors, votes, strict=True)]
        rulings.append(Majority(jurors).rule(record(*answers)))
    rows = [r.votes("overall") for r in rulings]
    table, _ = inter_rater.aggregate_raters(np.array([[v.value for v in row] for row in rows]))
    assert jury_kappa(rows) == pytest.approx(
        inter_rater.fleiss_kappa(table, method="fleiss"), abs=1e-12
    )


def test_kappa_leaves_out_pairs_with_fewer_than_two_verdicts() -> None:
    rows = [[A, A, B], [B, B, B], [A, None, None], [None, None, None]]
    assert jury_kappa(rows) == jury_kappa(rows[:2])
    assert jury_kappa([[A, None]]) is None
