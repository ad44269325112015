"""The list's filters by category and by generator, and the values each offers: each a
seek of an index m005 made, so a million pairs filter as fast as a thousand."""

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
