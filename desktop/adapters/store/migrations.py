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


@migrations()
def m004_conversations(db: Database) -> None:
    """A pair may be two conversations: each side's messages (JSON text of
    ``[{"role", "content"}, ...]``) and the compared assistant turn, all NULL for a
    single-turn pair. Existing pairs are single-turn pairs and keep their keys, so
    re-importing a file already imported still adds nothing."""
    db.execute("ALTER TABLE pairs ADD COLUMN conversation_a TEXT")
    db.execute("ALTER TABLE pairs ADD COLUMN conversation_b TEXT")
    db.execute("ALTER TABLE pairs ADD COLUMN turn INTEGER")


@migrations()
def m005_search_index(db: Database) -> None:
    """The list's search from SQLite's own full-text index: every three-character piece
    (trigram) of each pair's instruction and responses, so any substring of three or more
    characters is found without reading every pair. The index holds no text of its own
    (``content='pairs'``) and no positions (``detail=none``: a tenth of the size; each
    candidate is checked against the text, see ``search_index``). Triggers keep it in step
    with every insert, delete and change of a pair (imports, merges, later migrations that
    update pairs); a migration that rebuilds the pairs table must rebuild this index too.
    An existing project's index is built here, once."""
    db.execute(
        "CREATE VIRTUAL TABLE pairs_search USING fts5(instruction, response_a, response_b,"
        " content='pairs', content_rowid='id', tokenize='trigram', detail='none',"
        " columnsize=0)"
    )
    columns = "instruction, response_a, response_b"
    new = "new.id, new.instruction, new.response_a, new.response_b"
    old = "'delete', old.id, old.instruction, old.response_a, old.response_b"
    db.execute(
        "CREATE TRIGGER pairs_search_insert AFTER INSERT ON pairs BEGIN"
        f" INSERT INTO pairs_search(rowid, {columns}) VALUES ({new}); END"
    )
    db.execute(
        "CREATE TRIGGER pairs_search_delete AFTER DELETE ON pairs BEGIN"
        f" INSERT INTO pairs_search(pairs_search, rowid, {columns}) VALUES ({old}); END"
    )
    db.execute(
        f"CREATE TRIGGER pairs_search_update AFTER UPDATE OF {columns} ON pairs BEGIN"
        f" INSERT INTO pairs_search(pairs_search, rowid, {columns}) VALUES ({old});"
        f" INSERT INTO pairs_search(rowid, {columns}) VALUES ({new}); END"
    )
    db.execute("INSERT INTO pairs_search(pairs_search) VALUES ('rebuild')")
    # The list's filters by category and by generator, and its sort by category and by id,
    # each a seek (a pair without one sorts and filters as '').
    db.execute("CREATE INDEX pairs_category ON pairs(coalesce(category, ''))")
    db.execute("CREATE INDEX pairs_external_id_text ON pairs(coalesce(external_id, ''))")
    db.execute("CREATE INDEX pairs_model_a ON pairs(model_a)")
    db.execute("CREATE INDEX pairs_model_b ON pairs(model_b)")


@migrations()
def m006_samples(db: Database) -> None:
    """A sample of pairs to review (``tiebreak sample``): how it was drawn, and every pair
    of its frame with its probability of being drawn (the figures weight a reviewed pair by
    the inverse of it, and a pair not reviewed by 1 / (1 - it)) and, where drawn, its place
    in the order to review."""
    db.execute(
        """
        CREATE TABLE samples (
            id INTEGER PRIMARY KEY,
            rubric_name TEXT NOT NULL,
            judge_model TEXT,
            method TEXT NOT NULL CHECK (method IN ('uniform', 'uncertain')),
            size INTEGER NOT NULL,
            seed INTEGER NOT NULL,
            floor REAL,
            created_at TEXT NOT NULL
        )"""
    )
    db.execute(
        """
        CREATE TABLE sample_pairs (
            sample_id INTEGER NOT NULL REFERENCES samples(id),
            pair_id INTEGER NOT NULL REFERENCES pairs(id),
            probability REAL NOT NULL CHECK (probability >= 0 AND probability <= 1),
            position INTEGER,
            PRIMARY KEY (sample_id, pair_id)
        )"""
    )
    db.execute("CREATE INDEX samples_rubric ON samples(rubric_name, id)")


@migrations()
def m007_judge_seen(db: Database) -> None:
    """Which judge verdicts the window has shown to whom: per pair, rubric, reviewer and
    dimension, the judges whose verdict was on screen and when first. A verdict given in
    blind mode is stored as blind only where none was ever shown to that reviewer, in
    this window or an earlier one (services/blind_review.py)."""
    db.execute(
        """
        CREATE TABLE judge_seen (
            pair_id INTEGER NOT NULL REFERENCES pairs(id),
            rubric_name TEXT NOT NULL,
            reviewer TEXT NOT NULL,
            dimension TEXT NOT NULL,
            judge_model TEXT NOT NULL,
            shown_at TEXT NOT NULL,
            PRIMARY KEY (pair_id, rubric_name, reviewer, dimension, judge_model)
        ) WITHOUT ROWID"""
    )


@migrations()
def m008_juries(db: Database) -> None:
    """Juries a project keeps (``tiebreak jury add``, ``judge --jury``, ``judge --samples``):
    several judges of a rubric combined as one, by name, shown wherever a judge is chosen.
    ``jurors`` is a JSON array of judge names; ``combine`` a key of ``domain.jury.COMBINES``."""
    db.execute(
        """
        CREATE TABLE juries (
            id INTEGER PRIMARY KEY,
            rubric_name TEXT NOT NULL,
            name TEXT NOT NULL,
            jurors TEXT NOT NULL,
            combine TEXT NOT NULL CHECK (combine IN ('majority', 'mean')),
            created_at TEXT NOT NULL,
            UNIQUE (rubric_name, name)
        )"""
    )


@migrations()
def m009_review_marks(db: Database) -> None:
    """Answers that are not a verdict (issue 30): ``bothbad`` (a tie on which both responses
    are bad, Chatbot Arena's ``tie (bothbad)``: stored with verdict ``tie``, so every figure
    and an earlier reader count it as the tie it is), ``skip`` (decide later) and ``broken``
    (the pair cannot be judged; its reason is the row's note), both with no verdict. Added
    as a column: the verdict's CHECK stays as it is, and no row is rewritten."""
    db.execute(
        "ALTER TABLE human_verdicts ADD COLUMN mark TEXT"
        " CHECK (mark IS NULL OR mark IN ('bothbad', 'skip', 'broken'))"
    )


@migrations()
def m010_pairs_with_nul(db: Database) -> None:
    """The pairs whose instruction or responses hold a NUL (``pairs_with_nul``), for the
    list's search: SQLite's ``LIKE`` and the trigram index (m005) read a text as a C
    string and stop at its first NUL, so these few pairs are checked by length-aware
    functions instead (``search_index``). Triggers keep the table in step with every
    insert, delete and change of a pair; a migration that rebuilds the pairs table must
    fill it again. An existing project's pairs are looked through here, once."""
    db.execute("CREATE TABLE pairs_with_nul (id INTEGER PRIMARY KEY)")
    texts = ("instruction", "response_a", "response_b")
    holds = " OR ".join(f"instr({{row}}.{column}, char(0))" for column in texts)
    db.execute(
        "CREATE TRIGGER pairs_with_nul_insert AFTER INSERT ON pairs"
        f" WHEN {holds.format(row='new')} BEGIN"
        " INSERT OR IGNORE INTO pairs_with_nul(id) VALUES (new.id); END"
    )
    db.execute(
        "CREATE TRIGGER pairs_with_nul_delete AFTER DELETE ON pairs BEGIN"
        " DELETE FROM pairs_with_nul WHERE id = old.id; END"
    )
    db.execute(
        "CREATE TRIGGER pairs_with_nul_update AFTER UPDATE OF instruction, response_a,"
        " response_b ON pairs BEGIN DELETE FROM pairs_with_nul WHERE id = old.id;"
        f" INSERT INTO pairs_with_nul(id) SELECT new.id WHERE {holds.format(row='new')}; END"
    )
    db.execute(
        f"INSERT INTO pairs_with_nul(id) SELECT id FROM pairs WHERE {holds.format(row='pairs')}"
    )


@migrations()
def m011_trajectory_tools(db: Database) -> None:
    """Two trajectories may carry the tool definitions their agent was given (JSON text
    of a list, as the file wrote it); NULL for every pair before, which keeps its key."""
    db.execute("ALTER TABLE pairs ADD COLUMN tools TEXT")


@migrations()
def m012_trajectory_steps(db: Database) -> None:
    """What each side of a trajectory pair did, for the pair list (``pair_steps``: steps,
    tool calls, errors returned by tools, counted as a pair is added), and the search
    index over the text of its steps (``steps_search``: what the agent said, tool names,
    arguments and results), whose content is worked out of the stored sides by the view
    ``pair_steps_text``, so no text is stored twice (see ``pair_steps``). Triggers keep the
    index in step with the counted pairs, and both with a pair deleted or its sides
    changed; a migration that rebuilds the pairs table must count its pairs again. An
    existing project's trajectory pairs are counted here, once."""
    from desktop.adapters.store.pair_steps import create_schema

    create_schema(db)


@migrations()
def m013_search_backlog(db: Database) -> None:
    """The search index (m005) may be behind the pairs: a large import leaves its pairs
    out of it and returns, and the index is built after (``search_backlog``: pairs from
    ``first_id`` on are not in ``pairs_search``; no row, all are), while the list's search
    reads those pairs whole (``search_index``). The triggers of m005 are made again to
    index, and to take out of the index, only the pairs below the backlog."""
    db.execute("CREATE TABLE search_backlog (first_id INTEGER NOT NULL)")
    for trigger in ("insert", "delete", "update"):
        db.execute(f"DROP TRIGGER pairs_search_{trigger}")
    columns = "instruction, response_a, response_b"
    indexed = "NOT EXISTS (SELECT 1 FROM search_backlog WHERE first_id <= {row}.id)"
    new = f"SELECT new.id, new.instruction, new.response_a, new.response_b WHERE {indexed}"
    old = (
        f"SELECT 'delete', old.id, old.instruction, old.response_a, old.response_b WHERE {indexed}"
    )
    db.execute(
        "CREATE TRIGGER pairs_search_insert AFTER INSERT ON pairs"
        f" WHEN {indexed.format(row='new')} BEGIN"
        f" INSERT INTO pairs_search(rowid, {columns})"
        " VALUES (new.id, new.instruction, new.response_a, new.response_b); END"
    )
    db.execute(
        "CREATE TRIGGER pairs_search_delete AFTER DELETE ON pairs"
        f" WHEN {indexed.format(row='old')} BEGIN"
        f" INSERT INTO pairs_search(pairs_search, rowid, {columns})"
        " VALUES ('delete', old.id, old.instruction, old.response_a, old.response_b); END"
    )
    db.execute(
        f"CREATE TRIGGER pairs_search_update AFTER UPDATE OF {columns} ON pairs BEGIN"
        f" INSERT INTO pairs_search(pairs_search, rowid, {columns}) {old.format(row='old')};"
        f" INSERT INTO pairs_search(rowid, {columns}) {new.format(row='new')}; END"
    )


@migrations()
def m015_data_revision(db: Database) -> None:
    """A count of the writes that can change a figure, so figures computed once are reused
    until the project changes (``adapters.store.revision``). Triggers count every verdict,
    result, rubric, sample and jury written or deleted, and a pair changed or deleted; a pair
    added raises the largest pair id instead (a trigger per pair doubled an import's time).
    What a reviewer was shown and the settings (the pair last shown) move no figure and are
    not counted."""
    from desktop.adapters.store.revision import WATCHED

    db.execute("CREATE TABLE revision (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)")
    db.execute("INSERT INTO revision VALUES (1, 0)")
    bump = "BEGIN UPDATE revision SET n = n + 1 WHERE id = 1; END"
    for table, events in WATCHED.items():
        for event in events:
            db.execute(
                f"CREATE TRIGGER {table}_revision_{event.lower()} AFTER {event} ON {table} {bump}"
            )


@migrations()
def m016_answer_measures(db: Database) -> None:
    """Each pair's answers measured once and kept (``answer_measures``): their lengths, list
    marks and style counts, so the figures read a few integers a pair instead of every
    answer's text again. A pair without a row is measured when a figure needs it; a pair
    deleted, or its answers changed, loses its row. Measures follow from the answers alone,
    so they move no figure and are not counted by m015's revision."""
    from desktop.adapters.store.answer_measures import COLUMNS

    db.execute(
        "CREATE TABLE answer_measures (pair_id INTEGER PRIMARY KEY, tokenizer TEXT NOT NULL, "
        + ", ".join(f"{c} INTEGER NOT NULL" for c in COLUMNS)
        + ")"
    )
    db.execute(
        "CREATE TRIGGER pairs_measures_delete BEFORE DELETE ON pairs BEGIN"
        " DELETE FROM answer_measures WHERE pair_id = old.id; END"
    )
    db.execute(
        "CREATE TRIGGER pairs_measures_update AFTER UPDATE OF response_a, response_b ON pairs"
        " BEGIN DELETE FROM answer_measures WHERE pair_id = old.id; END"
    )


def known_migrations() -> frozenset[str]:
    """Names of every migration this release knows; a file with others is from a newer one."""
    return frozenset(
        m.name for m in migrations.pending(Database(memory=True, execute_plugins=False))
    )
