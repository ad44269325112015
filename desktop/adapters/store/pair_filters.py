"""The list's filters by category and by generator, and the values each offers: each a
seek of an index m005 made, so a million pairs filter as fast as a thousand; and, for a
project of trajectories, by what their tools did (the counts of ``pair_steps``, m012)."""

from __future__ import annotations

from desktop.adapters.store.pair_reader import Condition
from desktop.adapters.store.project import ProjectStore

_CATEGORY = "coalesce(category, '')"


def in_category(category: str) -> Condition:
    """Pairs of ``category`` ('' for pairs without one)."""
    return Condition("coalesce(p.category, '') = :c_category", {"c_category": category})


def by_generator(generator: str) -> Condition:
    """Pairs where ``generator`` wrote response A or response B."""
    return Condition(
        "p.id IN (SELECT id FROM pairs WHERE model_a = :c_generator"
        " UNION ALL SELECT id FROM pairs WHERE model_b = :c_generator)",
        {"c_generator": generator},
    )


#: The list's filters of a project that holds trajectories, as SQL on their counts (m012).
STEP_FILTERS = {
    "tool-errors": "errors_a + errors_b > 0",
    "tool-errors-a": "errors_a > 0",
    "tool-errors-b": "errors_b > 0",
    "no-tool-calls": "calls_a = 0 OR calls_b = 0",
}


def by_steps(name: str) -> Condition | None:
    """Trajectory pairs meeting one of STEP_FILTERS; None for a name that is none of them."""
    test = STEP_FILTERS.get(name)
    if test is None:
        return None
    return Condition(f"p.id IN (SELECT pair_id FROM pair_steps WHERE {test})", {})


def all_of(*conditions: Condition | None) -> Condition | None:
    """The conditions together (None where none is given)."""
    given = [c for c in conditions if c is not None]
    if not given:
        return None
    params: dict[str, object] = {}
    for condition in given:
        params.update(condition.params)
    return Condition(" AND ".join(f"({c.sql})" for c in given), params)


def _distinct(store: ProjectStore, expr: str) -> list[str]:
    """The distinct values of an indexed expression, one seek each (not a read of every
    pair), in order."""
    rows = store.conn.execute(
        f"WITH RECURSIVE v(x) AS (SELECT min({expr}) FROM pairs UNION ALL"
        f" SELECT (SELECT min({expr}) FROM pairs WHERE {expr} > v.x) FROM v"
        " WHERE v.x IS NOT NULL) SELECT x FROM v WHERE x IS NOT NULL"
    ).fetchall()
    return [r[0] for r in rows]


def categories(store: ProjectStore) -> list[str]:
    """Every category of the project's pairs ('' where some pair has none)."""
    return _distinct(store, _CATEGORY)


def generators(store: ProjectStore) -> list[str]:
    """Every generator named as response A's or B's."""
    return sorted(set(_distinct(store, "model_a")) | set(_distinct(store, "model_b")))
