"""What marks a file as a Tiebreak project and which schema steps this release knows,
readable without loading sqlite-utils (tests check these match migrations.py)."""

# Marks a file as a Tiebreak project ("TBRK"), so a foreign SQLite file is refused.
APPLICATION_ID = 0x5442524B

MIGRATION_SET = "tiebreak"
MIGRATION_NAMES = frozenset(
    {
        "m001_initial",
        "m002_pair_identity",
        "m003_judge_preference",
        "m004_conversations",
        "m005_search_index",
        "m006_samples",
        "m007_judge_seen",
        "m008_juries",
        "m009_review_marks",
        "m010_pairs_with_nul",
        "m011_trajectory_tools",
        "m012_trajectory_steps",
        "m013_search_backlog",
        "m015_data_revision",
        "m016_answer_measures",
    }
)
