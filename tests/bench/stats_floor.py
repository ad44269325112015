"""The floor `tiebreak stats` is measured against (issue 33): a short numpy script that reads
the same project file and computes the core of `stats`' figures for every dimension of one
rubric and its judge, with no per-pair Python objects: the judge's verdicts over both
orders (a disagreement is a tie), B's win rate with a bootstrap interval (numpy's binomial
draws, from the seed `stats` names that figure by), the reviewers' label, and the judge's
agreement with it and Cohen's κ. It reads plain projects as the benchmarks build them (one
label per reviewer's latest verdict, a majority of them; no marks, adjudications or
juries), which is what makes it a floor: what it leaves out is what `stats` does beyond it.

    python tests/bench/stats_floor.py PROJECT   # prints the figures as JSON
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys

import numpy as np

_CODE = {"A": 0, "B": 1, "tie": 2}
ALL = "all"  # the name of `stats`' section over every pair


def _latest_answers(conn: sqlite3.Connection, rubric: str, judge: str, dims: list[str]):
    """(pair ids, AB codes, BA codes) per dimension: -1 where there is no verdict; a pair
    with no BA answer has BA codes of -2."""
    extract = ", ".join(f"json_extract(r.verdicts, '$.{d}')" for d in dims)
    rows = conn.execute(
        f"SELECT r.pair_id, r.ord = 'BA', {extract} FROM judge_results r"
        " WHERE r.id IN (SELECT max(id) FROM judge_results WHERE rubric_name = ?"
        " AND judge_model = ? GROUP BY pair_id, ord) AND r.status != 'error'",
        [rubric, judge],
    ).fetchall()
    table = np.array(
        [[pid, back, *(_CODE.get(v, -1) for v in vs)] for pid, back, *vs in rows], dtype=np.int64
    ).reshape(-1, 2 + len(dims))
    ids = np.unique(table[:, 0])
    at = np.searchsorted(ids, table[:, 0])
    ab = np.full((len(ids), len(dims)), -1)
    ba = np.full((len(ids), len(dims)), -2)
    forward = table[:, 1] == 0
    ab[at[forward]] = table[forward, 2:]
    ba[at[~forward]] = table[~forward, 2:]
    return ids, ab, ba


def _combined(ab: np.ndarray, ba: np.ndarray) -> np.ndarray:
    """Both orders: agreeing gives the verdict, disagreeing a tie, a missing one none."""
    one = ba == -2
    both = np.where(ab == ba, ab, 2)
    both = np.where((ab < 0) | (ba < 0), -1, both)
    return np.where(one, ab, both)


def _labels(conn: sqlite3.Connection, rubric: str, dims: list[str]):
    """(pair ids, label codes per dimension: -1 none): each reviewer's latest verdict, the
    majority of them (a split: none)."""
    rows = conn.execute(
        "SELECT h.pair_id, h.dimension, h.verdict FROM human_verdicts h WHERE h.id IN"
        " (SELECT max(id) FROM human_verdicts WHERE rubric_name = ?"
        " GROUP BY pair_id, dimension, reviewer)"
        " AND h.verdict IS NOT NULL AND coalesce(h.mode, '') != 'accepted'",
        [rubric],
    ).fetchall()
    index = {d: i for i, d in enumerate(dims)}
    table = np.array(
        [(pid, index[d], _CODE[v]) for pid, d, v in rows if d in index], dtype=np.int64
    ).reshape(-1, 3)
    ids = np.unique(table[:, 0])
    votes = np.zeros((len(ids), len(dims), 3), dtype=np.int64)
    np.add.at(votes, (np.searchsorted(ids, table[:, 0]), table[:, 1], table[:, 2]), 1)
    top = votes.max(axis=2)
    winner = votes.argmax(axis=2)
    unique = (votes == top[..., None]).sum(axis=2) == 1
    return ids, np.where((top > 0) & unique, winner, -1)


def _interval(a: int, b: int, tie: int, rng: np.random.Generator, resamples: int):
    n = a + b + tie
    if n == 0:
        return None, None
    got_a = rng.binomial(n, a / n, resamples)
    got_tie = rng.binomial(n - got_a, tie / (n - a) if n > a else 0.0)
    rates = np.sort((got_a + 0.5 * got_tie) / n)
    low, high = np.quantile(rates, [0.025, 0.975])
    return 1 - high, 1 - low  # B's: the complement of A's draws


def _seeded(name: str) -> np.random.Generator:
    """The stream `stats` draws a figure's interval from: PCG64 seeded by the name's hash."""
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def _kappa(matrix: np.ndarray) -> float | None:
    n = matrix.sum()
    if n == 0:
        return None
    observed = np.trace(matrix) / n
    expected = float((matrix.sum(axis=0) * matrix.sum(axis=1)).sum()) / n**2
    return None if expected == 1 else float((observed - expected) / (1 - expected))


def floor(path: str, seed: int = 0, resamples: int = 2000) -> dict[str, object]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rubric, dims_text = conn.execute(
        "SELECT name, dimensions FROM rubrics ORDER BY added_at LIMIT 1"
    ).fetchone()
    dims = json.loads(dims_text)
    (judge,) = conn.execute(
        "SELECT judge_model FROM judge_results WHERE rubric_name = ? ORDER BY id DESC LIMIT 1",
        [rubric],
    ).fetchone()
    pairs = conn.execute("SELECT count(*) FROM pairs").fetchone()[0]
    judged_ids, ab, ba = _latest_answers(conn, rubric, judge, dims)
    verdicts = _combined(ab, ba)
    label_ids, labels = _labels(conn, rubric, dims)
    both = np.intersect1d(judged_ids, label_ids)
    out: dict[str, object] = {"rubric": rubric, "judge": judge, "pairs": pairs, "dimensions": {}}
    for i, dim in enumerate(dims):
        v = verdicts[:, i]
        a, b, tie = (int((v == c).sum()) for c in range(3))
        low, high = _interval(a, b, tie, _seeded(f"{seed}:{rubric}:{ALL}:{dim}:judge"), resamples)
        judge_v = verdicts[np.searchsorted(judged_ids, both), i]
        human_v = labels[np.searchsorted(label_ids, both), i]
        keep = (judge_v >= 0) & (human_v >= 0)
        matrix = np.zeros((3, 3), dtype=np.int64)
        np.add.at(matrix, (judge_v[keep], human_v[keep]), 1)
        n = int(matrix.sum())
        out["dimensions"][dim] = {  # type: ignore[index]
            "judge_win": {
                "n": a + b + tie,
                "a": a,
                "b": b,
                "tie": tie,
                "rate": (b + 0.5 * tie) / (a + b + tie) if a + b + tie else None,
                "low": low,
                "high": high,
            },
            "vs_human": {
                "n": n,
                "agreement": float(np.trace(matrix) / n) if n else None,
                "kappa": _kappa(matrix),
                "confusion": matrix.tolist(),
            },
        }
    conn.close()
    return out


if __name__ == "__main__":
    print(json.dumps(floor(sys.argv[1]), indent=2))
