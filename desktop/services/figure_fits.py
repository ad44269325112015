"""Figures fitted from all pairs at once ("collect, then fit"): tallies (see
``figure_sources``) that keep only the few numbers a fit needs from each pair of the
streaming pass and fit in ``finish``, given a ``FitContext``: B's win rate three ways (the
judge alone, the humans alone, PPI++: ``domain.prediction_powered``), the further reviews
a chosen half-width needs (``domain.review_budget``), the judge's calibration against the
reviewers (``domain.calibration``) and its length, list and output_1 biases as AlpacaEval
measures them (``domain.judge_biases``, whose list test reads the responses in one more
pass, for the pairs ``answer_ids`` names).

Where a sample was drawn for the rubric (``tiebreak sample``), the win rates weight each
reviewed pair it drew by 1 / (its probability x the share of the sample reviewed) and
every other judged pair by 1 / (1 - that) (``review_sample.ipw_weights``); a reviewed pair
the sample did not draw counts there as judged only. Without a sample the reviewed pairs
weigh alike, and the figures say in one line that they may not stand for every pair.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from desktop.domain.head_to_head import b_score
from desktop.services.figure_sources import DEFAULT_ALPHA, Finish, FitContext, PairFacts

if TYPE_CHECKING:
    from desktop.adapters.store.project import ProjectStore
    from desktop.adapters.store.samples import FramePair, Sample
    from desktop.domain.calibration import Calibration
    from desktop.domain.judge_biases import JudgeBiases
    from desktop.domain.prediction_powered import WinRateEstimates

__all__ = [
    "DEFAULT_ALPHA",
    "FitContext",
    "ReviewTarget",
    "SampleUse",
    "fit_context",
    "sample_use",
]


@dataclass(frozen=True)
class ReviewTarget:
    """How many more human verdicts bring the PPI++ interval to ±``half_width``."""

    half_width: float
    more: int | None  # None: reviewing every pair would not get there
    expected_half_width: float | None  # after that many more


@dataclass(frozen=True)
class SampleUse:
    """How the reviewed pairs were chosen, as the figures over them must say."""

    sample_id: int | None
    method: str | None
    size: int | None
    seed: int | None
    drawn_reviewed: int  # reviewed pairs the sample drew
    not_drawn_reviewed: int  # reviewed pairs it did not draw (all of them without a sample)
    note: str | None  # the one line the figures show


class WinRatesFit:
    """B's win rate three ways: the judge alone, the humans alone and PPI++
    (``domain.prediction_powered``), weighted by the latest sample where one was drawn."""

    reviewed_only = False

    def __init__(self) -> None:
        self.ids: list[int] = []  # judged pairs
        self.judge: list[float] = []  # the judge's B score of each
        self.human: list[float | None] = []  # the reviewers' B score, where reviewed

    def add(self, p: PairFacts) -> None:
        score = b_score(p.judge, p.preference)
        if score is not None:
            self.ids.append(p.id)
            self.judge.append(score)
            self.human.append(b_score(p.human))

    def finish(self, f: Finish) -> WinRateEstimates | None:
        if not self.judge or f.fits is None:
            return None
        return fit_win_rates(self, f.fits)


def fit_win_rates(c: WinRatesFit, fits: FitContext) -> WinRateEstimates:
    from desktop.domain.prediction_powered import win_rate_estimates

    labelled, w, w_u = _weights(c, fits.frame, fits.sample_size)
    chosen = set(labelled)
    y = [h for i in labelled if (h := c.human[i]) is not None]  # each labelled is reviewed
    yhat = [c.judge[i] for i in labelled]
    rest = [s for i, s in enumerate(c.judge) if i not in chosen]
    return win_rate_estimates(y, yhat, rest, alpha=fits.alpha, w=w, w_unlabeled=w_u)


class TargetFit:
    """The further human verdicts that bring the PPI++ interval (the figure ``win_rates``,
    fitted before this one) to the --target half-width (``domain.review_budget``)."""

    reviewed_only = True

    def add(self, p: PairFacts) -> None:
        pass

    def finish(self, f: Finish) -> ReviewTarget | None:
        from desktop.domain.prediction_powered import WinRateEstimates
        from desktop.domain.review_budget import half_width_after, more_reviews_needed

        estimates = f.done.get("win_rates")
        target = None if f.fits is None else f.fits.target
        if (
            target is None
            or not isinstance(estimates, WinRateEstimates)
            or estimates.combined is None
        ):
            return None
        more = more_reviews_needed(estimates.combined, target)
        after = None if more is None else half_width_after(estimates.combined, more)
        return ReviewTarget(target, more, after)


class CalibrationFit:
    """The judge's confidence against the reviewers' consensus (``domain.calibration``)."""

    reviewed_only = True

    def __init__(self) -> None:
        self.items: list[tuple[float, bool]] = []

    def add(self, p: PairFacts) -> None:
        if p.confidence is not None and p.judge is not None and p.human is not None:
            self.items.append((p.confidence, p.judge is p.human))

    def finish(self, f: Finish) -> Calibration | None:
        from desktop.domain.calibration import calibration

        return calibration(self.items) if self.items else None


class BiasesFit:
    """The judge's length, list and output_1 biases as AlpacaEval measures them
    (``domain.judge_biases``), over the answers read for ``answer_ids`` after the pass, with
    the order the judge was shown the outputs in (``FitContext.order_seen``)."""

    reviewed_only = False

    def __init__(self) -> None:
        self.preferences: list[tuple[int, float]] = []  # (pair, preference)

    def add(self, p: PairFacts) -> None:
        if p.preference is not None and b_score(p.judge, p.preference) is not None:
            self.preferences.append((p.id, p.preference))

    def answer_ids(self) -> list[int]:
        return [pid for pid, _ in self.preferences]

    def finish(self, f: Finish) -> JudgeBiases | None:
        from desktop.domain.judge_biases import biases_of_answers

        if f.fits is None or not self.preferences:
            return None
        answers = f.fits.answers
        biases = biases_of_answers((*answers[pid], pref) for pid, pref in self.preferences)
        return replace(biases, order_seen=f.fits.order_seen)


def _weights(
    c: WinRatesFit, frame: Mapping[int, FramePair] | None, size: int
) -> tuple[list[int], list[float] | None, list[float] | None]:
    """(labelled positions, w, w_unlabeled) of the reviewed pairs and the rest."""
    from desktop.domain.review_sample import ipw_weights

    if frame is None:
        return [i for i, h in enumerate(c.human) if h is not None], None, None
    labelled = [
        i
        for i, (pid, h) in enumerate(zip(c.ids, c.human, strict=True))
        if h is not None and (p := frame.get(pid)) is not None and p.position is not None
    ]
    if not labelled:
        return [], None, None
    chosen = set(labelled)
    share = min(1.0, len(labelled) / size)
    reviewed = [frame[c.ids[i]].probability for i in labelled]
    rest = []
    for i, pid in enumerate(c.ids):
        if i not in chosen:
            p = frame.get(pid)
            rest.append(0.0 if p is None else p.probability)
    w, w_u = ipw_weights(reviewed, rest, reviewed_share=share)
    return labelled, w, w_u


def latest_frame(store: ProjectStore, rubric: str) -> tuple[Sample | None, Mapping[int, FramePair]]:
    """The rubric's latest sample (None: none was drawn) and its pairs' probabilities."""
    from desktop.adapters.store.samples import latest_sample, sample_frame

    sample = latest_sample(store, rubric)
    return sample, (sample_frame(store, sample.id) if sample is not None else {})


def fit_context(
    store: ProjectStore, rubric: str, *, alpha: float = DEFAULT_ALPHA, target: float | None = None
) -> tuple[FitContext, Sample | None, Mapping[int, FramePair]]:
    """The context of the rubric's fits (without the answers' measures), and its sample."""
    sample, frame = latest_frame(store, rubric)
    context = FitContext(
        alpha=alpha,
        target=target,
        frame=frame if sample is not None else None,
        sample_size=sample.size if sample is not None else 0,
    )
    return context, sample, frame


def sample_use(
    sample: Sample | None, frame: Mapping[int, FramePair], reviewed: Iterable[int]
) -> SampleUse:
    """Which reviewed pairs a sample drew, and the one line that says so."""
    ids = list(reviewed)
    if sample is None:
        note = None
        if ids:
            note = (
                f"the {len(ids):,} reviewed pairs were not drawn by a sample (the queue puts"
                " uncertain verdicts first), so figures over them may not stand for every"
                " pair; 'tiebreak sample' draws one to review"
            )
        return SampleUse(None, None, None, None, 0, len(ids), note)
    drawn = sum(1 for i in ids if (p := frame.get(i)) is not None and p.position is not None)
    outside = len(ids) - drawn
    note = (
        f"sample #{sample.id} ({sample.method}, {sample.size:,} pairs, seed {sample.seed}):"
        f" {drawn:,} of its pairs reviewed, weighted by 1 / probability in the win rates"
    )
    if outside:
        note += (
            f"; {outside:,} reviewed pairs it did not draw count there as judged only, and"
            " agreement over them may not stand for every pair"
        )
    return SampleUse(sample.id, sample.method, sample.size, sample.seed, drawn, outside, note)
