"""Style-controlled ratings equal LMArena's ``arena-rank`` ``ContextualBradleyTerry`` on the
same battles: ratings, coefficients and sandwich intervals to 0.01 points; the style
features count as FastChat's ``add_markdown_info`` counts them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from desktop.domain import contextual_bradley_terry as cbt
from desktop.domain.style_features import answer_style, battle_features, without_code

UNIT = 400 / math.log(10)


def styled_battles(seed: int, models: int, verdicts: int) -> tuple:
    """Battles between models of normal strengths whose answers differ in length and
    markdown; longer answers win more often (coefficient 0.4 on the length feature)."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, models)
    verbosity = rng.normal(0.0, 0.5, models)
    a = rng.integers(0, models, verdicts)
    b = (a + rng.integers(1, models, verdicts)) % models
    counts_a = np.column_stack(
        [rng.poisson(300 * np.exp(verbosity[a] + rng.normal(0, 0.6, verdicts))),
         rng.poisson(2, verdicts),
         rng.poisson(5, verdicts), rng.poisson(3, verdicts)]
    )  # fmt: skip
    counts_b = np.column_stack(
        [rng.poisson(300 * np.exp(verbosity[b] + rng.normal(0, 0.6, verdicts))),
         rng.poisson(2, verdicts),
         rng.poisson(5, verdicts), rng.poisson(3, verdicts)]
    )  # fmt: skip
    x = battle_features(counts_a, counts_b)
    p_a = 1.0 / (1.0 + np.exp(-(strength[a] - strength[b] + 0.4 * x[:, 0])))
    tie = rng.random(verdicts) < 0.1
    outcome = np.where(tie, 0.5, (rng.random(verdicts) < p_a).astype(float))
    names = [f"model-{i:02d}" for i in range(models)]
    return names, a, b, outcome, x


def arena_rank_contextual(names, a, b, outcome, x, *, reweighted: bool, reg: float):
    pd = pytest.importorskip("pandas")
    data_utils = pytest.importorskip("arena_rank.utils.data_utils")
    contextual = pytest.importorskip("arena_rank.models.contextual_bradley_terry")
    cols = [f"f{i}" for i in range(x.shape[1])]
    frame = pd.DataFrame(x, columns=cols)
    frame["model_a"] = [names[i] for i in a]
    frame["model_b"] = [names[i] for i in b]
    frame["outcome"] = outcome
    dataset = data_utils.ContextualPairDataset.from_pandas(
        frame, cols, outcome_col="outcome", outcome_map=float, reweighted=reweighted
    )
    model = contextual.ContextualBradleyTerry(
        len(dataset.competitors), x.shape[1], reg=reg, ftol=1e-15, gtol=1e-12, max_iter=10_000
    )
    return dataset, model, model.compute_ratings_and_cis(dataset, significance_level=0.05)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("reweighted", "reg"),
    [
        pytest.param(False, None, id="fastchat-ridge"),
        pytest.param(True, None, id="fastchat-ridge-reweighted"),
        pytest.param(False, cbt.REG, id="arena-rank-default-ridge"),
    ],
)
def test_fit_and_sandwich_equal_arena_rank(reweighted: bool, reg: float | None) -> None:
    """``reg`` None: FastChat's ridge (0.5 on the summed loss), Tiebreak's default."""
    names, a, b, outcome, x = styled_battles(1, 8, 6_000)
    reg = cbt.fastchat_reg(len(a)) if reg is None else reg
    dataset, _, theirs = arena_rank_contextual(
        names, a, b, outcome, x, reweighted=reweighted, reg=reg
    )
    assert list(dataset.competitors) == names
    data = cbt.StyleBattles(
        tuple(names), a, b, outcome, np.asarray(dataset.features), np.asarray(dataset.weights)
    )
    theta = cbt.fit(data, reg)
    se = cbt.sandwich_se(data, theta, reg)
    k = len(names)
    ratings = theta[:k] * UNIT + 1000
    assert np.allclose(np.asarray(theirs["ratings"]), ratings, rtol=0, atol=0.01)
    assert np.allclose(np.asarray(theirs["coeffs"]), theta[k:], rtol=0, atol=1e-5)
    half = 1.959963984540054 * se[:k] * UNIT
    assert np.allclose(np.asarray(theirs["rating_lower"]), ratings - half, rtol=0, atol=0.01)
    assert np.allclose(np.asarray(theirs["rating_upper"]), ratings + half, rtol=0, atol=0.01)
    # the length coefficient is found: near 0.4 with FastChat's ridge, shrunk by
    # arena-rank's default (1 on the mean loss), but positive either way
    assert theta[k] > 0.02
    if reg < 0.01:
        assert theta[k] == pytest.approx(0.4, abs=4 * se[k])


def test_style_counts_as_fastchat_counts_them() -> None:
    answer = (
        "# Title\n## Sub\n#NotAHeader\n1. one\n2. two\n- dash\n  * star\n"
        "Some **bold** and __also__ and **not\nbold**.\n"
        "```python\n# a comment, not a header\n- not a list\n**nor bold**\n```\nend"
    )
    assert "comment" not in without_code(answer)
    tokens, headers, lists, bold = answer_style(answer, len)
    assert (tokens, headers, lists, bold) == (len(answer), 2, 4, 2)


def test_features_are_relative_differences_standardised() -> None:
    a = np.array([[100, 0, 0, 0], [50, 2, 0, 0], [10, 0, 0, 0]])
    b = np.array([[50, 0, 0, 0], [50, 0, 0, 0], [30, 0, 0, 0]])
    x = battle_features(a, b)
    ratio = np.array([50 / 151, 0.0, -20 / 41])
    assert x[:, 0] == pytest.approx((ratio - ratio.mean()) / ratio.std())
    assert x[:, 1].mean() == pytest.approx(0.0) and x[:, 1].std() == pytest.approx(1.0)
    assert np.all(x[:, 2:] == 0.0)  # a feature that never varies stays 0


# ---- `tiebreak stats --ratings --style-control` on a project --------------------------------


def styled_project(tmp_path, verdicts: int = 600):
    """Pairs among five generators whose answers differ in length and markdown, judged by
    "m"; the longer answer wins more often. Returns the project and the battles as
    arena-rank should see them (names, A, B, A's outcome, the answers)."""
    from desktop.adapters.store import open_project
    from desktop.services.importing import import_file
    from tests.helpers import new_project, write_jsonl
    from tests.stats_helpers import add_rubric, judge

    rng = np.random.default_rng(7)
    names = [f"gen-{i}" for i in range(5)]
    strength = rng.normal(0, 0.8, 5)
    a = rng.integers(0, 5, verdicts)
    b = (a + rng.integers(1, 5, verdicts)) % 5

    def answer(model: int) -> str:
        words = " ".join(["word"] * int(rng.integers(5, 80)))
        bullets = "".join(f"- **point** {j}\n" for j in range(int(rng.integers(0, 4))))
        heading = "# Answer\n" if rng.random() < 0.3 else ""
        code = "```\n# not a header\n```\n" if rng.random() < 0.2 else ""
        return f"{heading}{words}\n{bullets}{code}"

    texts_a = [answer(i) for i in a]
    texts_b = [answer(i) for i in b]
    gap = np.array([len(x) - len(y) for x, y in zip(texts_a, texts_b, strict=True)])
    p_a = 1 / (1 + np.exp(-(strength[a] - strength[b] + gap / 150)))
    outcome = (rng.random(verdicts) < p_a).astype(float)
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"question {i}",
            "output_1": texts_a[i],
            "output_2": texts_b[i],
            "generator_1": names[a[i]],
            "generator_2": names[b[i]],
        }
        for i in range(verdicts)
    ]
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, "r", ("overall",))
        for pid, o in enumerate(outcome, start=1):
            judge(store, pid, overall="A" if o == 1.0 else "B")
    return path, (names, a, b, outcome, texts_a, texts_b)


@pytest.mark.slow
def test_the_style_control_command_equals_arena_rank_on_a_project(tmp_path) -> None:
    from desktop.adapters.tokenizer import token_counter
    from tests.helpers import tiebreak

    path, (names, a, b, outcome, texts_a, texts_b) = styled_project(tmp_path)
    done = tiebreak(
        "stats", path, "--ratings", "--style-control", "--json", "--rounds", "50", "--seed", "2"
    )
    assert done.returncode == 0, done.stderr
    import json

    (got,) = json.loads(done.stdout)["ratings"]
    style = got["style"]
    tokenizer, tokens = token_counter()
    assert style["tokenizer"] == tokenizer
    counts_a = np.array([answer_style(t, tokens) for t in texts_a], dtype=float)
    counts_b = np.array([answer_style(t, tokens) for t in texts_b], dtype=float)
    x = battle_features(counts_a, counts_b)
    reg = cbt.fastchat_reg(len(a))
    _, _, theirs = arena_rank_contextual(names, a, b, outcome, x, reweighted=False, reg=reg)
    expected = dict(zip(theirs["competitors"], np.asarray(theirs["ratings"]), strict=True))
    lower = dict(zip(theirs["competitors"], np.asarray(theirs["rating_lower"]), strict=True))
    upper = dict(zip(theirs["competitors"], np.asarray(theirs["rating_upper"]), strict=True))
    plain = {m["model"]: m["rating"] for m in got["models"]}
    assert [m["model"] for m in style["models"]] == [m["model"] for m in got["models"]]
    for m, shift in zip(style["models"], style["shift"], strict=True):
        assert m["rating"] == pytest.approx(expected[m["model"]], abs=0.01)
        assert m["sandwich"] == pytest.approx([lower[m["model"]], upper[m["model"]]], abs=0.01)
        assert m["bootstrap"][0] < m["rating"] < m["bootstrap"][1]
        assert shift == pytest.approx(m["rating"] - plain[m["model"]])
    coefficients = {c["feature"]: c for c in style["coefficients"]}
    assert [c["value"] for c in style["coefficients"]] == pytest.approx(
        np.asarray(theirs["coeffs"]).tolist(), abs=1e-5
    )
    tokens_coef = coefficients["tokens"]
    assert tokens_coef["sandwich"][0] > 0  # longer answers won more, and the fit sees it
    text = tiebreak("stats", path, "--ratings", "--style-control", "--rounds", "0")
    assert text.returncode == 0, text.stderr
    assert "with style control" in text.stdout and f"tokens by {tokenizer}" in text.stdout
    assert "style coefficients" in text.stdout


def test_style_control_goes_with_ratings(tmp_path) -> None:
    from tests.helpers import tiebreak

    path, _ = styled_project(tmp_path, verdicts=20)
    done = tiebreak("stats", path, "--style-control")
    assert done.returncode == 1 and "--style-control goes with --ratings" in done.stderr


def test_tokens_are_counted_by_a_named_tokenizer() -> None:
    """tiktoken's cl100k_base where it loads offline, else characters, saying which."""
    from desktop.adapters.tokenizer import CHARACTERS, token_counter

    name, tokens = token_counter()
    try:
        import tiktoken  # noqa: F401
    except ImportError:
        assert (name, tokens("five.")) == (CHARACTERS, 5)
    else:
        assert name.startswith("tiktoken cl100k_base") or name == CHARACTERS
        assert tokens("hello world") == (2 if name != CHARACTERS else 11)


@pytest.mark.slow
def test_a_bootstrap_round_fits_as_arena_rank_fits_it() -> None:
    """One resample of the battles with replacement, fitted by arena-rank's own
    ``fit_single_bootstrap_sample`` (its JAX key) and by ours as counts: the same ratings
    to 0.01 points and the same coefficients."""
    jax = pytest.importorskip("jax")
    contextual = pytest.importorskip("arena_rank.models.contextual_bradley_terry")
    names, a, b, outcome, x = styled_battles(3, 6, 3_000)
    reg = cbt.fastchat_reg(len(a))
    dataset, model, _ = arena_rank_contextual(names, a, b, outcome, x, reweighted=False, reg=reg)
    key = jax.random.PRNGKey(5)
    theirs = contextual.fit_single_bootstrap_sample(key, model, dataset)
    drawn = np.asarray(jax.random.randint(key, shape=(len(a),), minval=0, maxval=len(a)))
    counts = np.bincount(drawn, minlength=len(a)).astype(float)
    data = cbt.StyleBattles(
        tuple(names), a, b, outcome, np.asarray(dataset.features), np.ones(len(a))
    )
    ours = cbt.fit(data, reg, counts)
    k = len(names)
    assert np.allclose(np.asarray(theirs["ratings"]) * UNIT, ours[:k] * UNIT, rtol=0, atol=0.01)
    assert np.allclose(np.asarray(theirs["coeffs"]), ours[k:], rtol=0, atol=1e-5)


def test_answers_counted_once_give_the_same_style_ratings_again(tmp_path) -> None:
    """The second fit in one process (the dock following a verdict, a report's next judge)
    reads each answer's counts from what was counted, and rates the same."""
    from desktop.adapters.store import open_project
    from desktop.services import answer_measuring, ratings

    path, _ = styled_project(tmp_path)
    answer_measuring._COUNTED.clear()
    with open_project(path, readonly=True) as store:
        first = ratings.rate_generators(store, rounds=0, style_control=True)
        counted = sum(len(kept) for kept in answer_measuring._COUNTED.values())
        again = ratings.rate_generators(store, rounds=0, style_control=True)
        assert sum(len(kept) for kept in answer_measuring._COUNTED.values()) == counted > 0
    assert [r.style for r in again] == [r.style for r in first]
    assert first[0].style is not None
