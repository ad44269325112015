"""AlpacaEval 2.0's length-controlled win rate, as
``alpaca_eval.metrics.glm_winrate.get_length_controlled_winrate`` (0.6.6) computes it.

A logistic model of the judge's preference for B on ``tanh(std_delta_len)`` (the baseline's
length minus B's, over its sample deviation), optionally each instruction's difficulty, and
an intercept (``not_gamed_baseline``); then B's predicted preference with no length
difference, averaged over the rows. The soft labels are fitted as AlpacaEval does: every row
twice, labelled 1 weighted by p and 0 weighted by 1 - p, with scikit-learn's
``LogisticRegressionCV`` (L1, liblinear, GroupKFold(5) over the row pairs, AlpacaEval's
continuous log loss as the score). The design matrix is built with numpy in patsy's column
order, so the same solver on the same numbers gives the same figure.

scikit-learn is imported only when a figure is computed (the window never pays for it).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.domain.errors import TiebreakError

if TYPE_CHECKING:
    import numpy as np

MINIMAL = "length_controlled_minimal"
NOREG = "length_controlled_noreg"
V1 = "length_controlled_v1"
#: Variant -> (uses instruction difficulty, weight lambda of the gamed baselines' rows).
VARIANTS: dict[str, tuple[bool, float | None]] = {
    MINIMAL: (False, None),
    NOREG: (True, None),
    V1: (True, 0.2),
}
GAMED_FILE = "df_gamed.csv"


def needs_files(variant: str) -> bool:
    """Whether the variant needs AlpacaEval's ``df_gamed.csv`` (its instruction difficulty)."""
    return VARIANTS[variant][0]


@dataclass(frozen=True)
class GamedData:
    """AlpacaEval's ``df_gamed.csv``: the gamed baselines' rows (regularisation for v1) and
    each instruction's difficulty, looked up, as AlpacaEval does, by a row's position."""

    rows: list[
        tuple[float | None, float, float, bool]
    ]  # preference, std_delta_len, difficulty, not gamed
    difficulty: dict[int, float]  # by row position in AlpacaEval's instruction order

    @property
    def instructions(self) -> int:
        return len(self.difficulty)


def read_gamed(folder: Path) -> GamedData:
    """``DIR/df_gamed.csv`` as AlpacaEval downloads it (columns ``index``, ``preference``,
    ``std_delta_len``, ``instruction_difficulty``, ``not_gamed_baseline``)."""
    path = folder / GAMED_FILE
    if not path.is_file():
        raise TiebreakError(f"--lc-files {folder}: no {GAMED_FILE} there (AlpacaEval's download)")
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        need = {"index", "preference", "std_delta_len", "instruction_difficulty"}
        missing = need - set(reader.fieldnames or ())
        if missing:
            raise TiebreakError(f"{path}: no column {', '.join(sorted(missing))}")
        rows: list[tuple[float | None, float, float, bool]] = []
        difficulty: dict[int, float] = {}
        seen: set[str] = set()
        for position, r in enumerate(reader):
            try:
                pref = _number(r["preference"])
                row = (pref, float(r["std_delta_len"]), float(r["instruction_difficulty"]))
            except ValueError:
                raise TiebreakError(f"{path}: row {position + 2} is not numbers") from None
            not_gamed = (r.get("not_gamed_baseline") or "").strip().lower() in ("true", "1")
            rows.append((*row, not_gamed))
            # drop_duplicates("index") keeps each index's first row, labelled by position.
            if r["index"] not in seen:
                seen.add(r["index"])
                difficulty[position] = row[2]
    return GamedData(rows, difficulty)


def _number(text: str) -> float | None:
    value = float(text) if text.strip() else math.nan
    return None if math.isnan(value) else value


@dataclass(frozen=True)
class LengthControlled:
    win_rate: float  # percent
    standard_error: float  # percent, of the mean predicted preference (AlpacaEval's sem)


def length_controlled(
    preferences: Sequence[float | None],
    len_baseline: Sequence[int],
    len_generator: Sequence[int],
    variant: str = MINIMAL,
    gamed: GamedData | None = None,
) -> LengthControlled:
    """One generator's length-controlled win rate against its baseline: ``preferences`` on
    AlpacaEval's scale (1 A .. 2 B, draw 1.5; None: no verdict, left out of the fit but
    kept as a row), one per instruction in AlpacaEval's order, with both outputs' lengths
    in characters."""
    import numpy as np

    use_difficulty, lam = VARIANTS[variant]
    n = len(preferences)
    delta = np.asarray(len_baseline, dtype=float) - np.asarray(len_generator, dtype=float)
    std = float(delta.std(ddof=1)) if n > 1 else math.nan
    y = np.array([math.nan if p is None else p - 1.0 for p in preferences])
    columns = [np.tanh(delta / std)]
    test = [np.zeros(n)]
    if use_difficulty:
        if gamed is None:
            raise TiebreakError(f"{variant} needs AlpacaEval's {GAMED_FILE} (--lc-files DIR)")
        diff = np.array([gamed.difficulty[i] for i in range(n)])
        columns.append(diff)
        test.append(diff)
    columns.append(np.ones(n))
    test.append(np.ones(n))
    x = np.column_stack(columns)
    weight = None
    if lam:
        assert gamed is not None
        g = np.array([(math.nan if p is None else p, s, d, ng) for p, s, d, ng in gamed.rows])
        gx = np.column_stack([np.tanh(g[:, 1]), g[:, 2], g[:, 3]])
        x = np.vstack([gx, x])
        y = np.concatenate([g[:, 0], y])
        # Two gamed baselines share lambda: each of their rows weighs lambda / 2.
        weight = np.where(g[:, 3] > 0, 1.0, lam / 2)
        weight = np.concatenate([weight, np.ones(n)])
    keep = ~np.isnan(y)
    model = _fit(x[keep], y[keep], None if weight is None else weight[keep])
    predicted = model.predict_proba(np.column_stack(test))[:, 1]
    sem = float(predicted.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    return LengthControlled(float(predicted.mean() * 100), sem * 100)


def _logloss_continuous(
    y_true: np.ndarray, y_pred: np.ndarray, true_prob: Any, true_sample_weight: Any = None
) -> float:
    """AlpacaEval's ``logloss_continuous``: the log loss against the soft label."""
    import numpy as np

    y = np.where(y_true == 1, true_prob, 1 - true_prob)
    p = np.clip(y_pred, 1e-15, 1 - 1e-15)
    losses = y * np.log(p) + (1 - y) * np.log(1 - p)
    if true_sample_weight is not None:
        losses = losses * true_sample_weight
    return float(-np.mean(losses))


def _fit(x: np.ndarray, p: np.ndarray, weight: np.ndarray | None) -> Any:
    """AlpacaEval's ``fit_LogisticRegressionCV`` with ``is_ytrue_proba=True``."""
    import warnings

    import numpy as np
    import sklearn
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.metrics import make_scorer
    from sklearn.model_selection import GroupKFold

    n = len(p)
    x_dup = np.vstack([x, x])
    y_dup = np.concatenate([np.ones(n, dtype=int), np.zeros(n, dtype=int)])
    true_prob = np.concatenate([p, 1 - p])
    groups = np.concatenate([np.arange(n), np.arange(n)])
    true_weight = None if weight is None else np.concatenate([weight, weight])
    sample_weight = true_prob if true_weight is None else true_prob * true_weight
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # penalty="l1", as AlpacaEval gives it
        scorer = make_scorer(
            _logloss_continuous, response_method="predict_proba", greater_is_better=False
        ).set_score_request(true_sample_weight=True, true_prob=True)
        model = LogisticRegressionCV(
            cv=GroupKFold(n_splits=5),
            scoring=scorer,
            random_state=123,
            dual=False,
            penalty="l1",
            solver="liblinear",
            n_jobs=None,
            fit_intercept=False,
        )
        model.set_fit_request(sample_weight=True)
        model.fit(
            x_dup,
            y_dup,
            sample_weight=sample_weight,
            groups=groups,
            true_sample_weight=true_weight,
            true_prob=true_prob,
        )
    return model
