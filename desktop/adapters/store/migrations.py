"""The project schema as numbered sqlite-utils migrations.

Each migration runs in its own transaction, so an older project file is brought up to date
step by step when a newer release opens it. Never edit a released migration; add one.
"""

from __future__ import annotations

from sqlite_utils import Database, Migrations

from desktop.adapters.store.schema import APPLICATION_ID, MIGRATION_SET

__all__ = ["APPLICATION_ID", "known_migrations", "migrations"]

migrations = Migrations(MIGRATION_SET)


@migrations()
def m001_initial(db: Database) -> None:
    db.execute(
        """
        CREATE TABLE pairs (
            id INTEGER PRIMARY KEY,
            pair_key TEXT NOT NULL UNIQUE,
            external_id TEXT,
            instruction TEXT NOT NULL,
            response_a TEXT NOT NULL,
            response_b TEXT NOT NULL,
            reference TEXT,
            source TEXT,
            model_a TEXT,
            model_b TEXT,
            category TEXT,
            metadata TEXT
        )"""
    )
    db.execute("CREATE INDEX pairs_external_id ON pairs(external_id)")
    db.execute(
        """
        CREATE TABLE rubrics (
            hash TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            title TEXT NOT NULL,
            dimensions TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('rubric', 'imported')),
            text TEXT NOT NULL,
            added_at TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX rubrics_name ON rubrics(name)")
    db.execute(
        """
        CREATE TABLE judge_results (
            id INTEGER PRIMARY KEY,
            pair_id INTEGER NOT NULL REFERENCES pairs(id),
            rubric_hash TEXT NOT NULL REFERENCES rubrics(hash),
            rubric_name TEXT NOT NULL,
            judge_model TEXT NOT NULL,
            settings_hash TEXT NOT NULL,
            ord TEXT NOT NULL CHECK (ord IN ('AB', 'BA')),
            request_hash TEXT,
            raw_completion TEXT,
            verdicts TEXT,
            confidence TEXT,
            status TEXT NOT NULL CHECK (status IN ('ok', 'parse-failure', 'error')),
            error TEXT,
            latency_ms REAL,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            origin TEXT NOT NULL DEFAULT 'model',
            created_at TEXT NOT NULL,
            UNIQUE (pair_id, rubric_hash, judge_model, settings_hash, ord)
        )"""
    )
    db.execute(
        "CREATE INDEX judge_results_lookup"
        " ON judge_results(rubric_name, judge_model, pair_id, ord, id)"
    )
    db.execute(
        """
        CREATE TABLE human_verdicts (
            id INTEGER PRIMARY KEY,
            pair_id INTEGER NOT NULL REFERENCES pairs(id),
            rubric_name TEXT NOT NULL,
            dimension TEXT NOT NULL,
            verdict TEXT CHECK (verdict IS NULL OR verdict IN ('A', 'B', 'tie')),
            reviewer TEXT NOT NULL,
            note TEXT,
            mode TEXT,
            created_at TEXT NOT NULL
        )"""
    )
    db.execute(
        "CREATE INDEX human_verdicts_lookup"
        " ON human_verdicts(pair_id, rubric_name, dimension, reviewer, id)"
    )
    db.execute("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT)")


@migrations()
def m002_pair_identity(db: Database) -> None:
    """A pair without an external id is keyed by its texts and its generators, no longer
    by its texts alone (two generators with the same answer are two pairs): bring the keys
    of existing pairs forward, so re-importing a file already imported still adds nothing."""
    from desktop.adapters.store.pair_keys import content_key
    from desktop.domain.pairs import IDENTITY_FIELDS

    conn, last = db.conn, 0
    while rows := conn.execute(
        f"SELECT id, {', '.join(IDENTITY_FIELDS)} FROM pairs"
        " WHERE id > ? AND coalesce(external_id, '') = '' ORDER BY id LIMIT 2000",
        [last],
    ).fetchall():
        conn.executemany(
            "UPDATE pairs SET pair_key = ? WHERE id = ?",
            [(content_key(None, *row[1:]), row[0]) for row in rows],
        )
        last = rows[-1][0]


@migrations()
def m003_judge_preference(db: Database) -> None:
    """A judge's preference exactly as a file gave it (AlpacaEval's 1 + P(output_2 is
    better), per dimension as JSON), beside the verdict rounded from it; and an index that
    finds each judge's latest answer for a rubric without reading all its answers."""
    db.execute("ALTER TABLE judge_results ADD COLUMN preference TEXT")
    db.execute("CREATE INDEX judge_results_recent ON judge_results(rubric_name, judge_model, id)")


def known_migrations() -> frozenset[str]:
    """Names of every migration this release knows; a file with others is from a newer one."""
    return frozenset(
        m.name for m in migrations.pending(Database(memory=True, execute_plugins=False))
    )
