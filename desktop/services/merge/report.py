"""What a merge did, counted the same way for a project file and an export."""

from __future__ import annotations

from dataclasses import dataclass, field

BATCH = 1000  # pairs or rows matched per query


@dataclass
class MergeReport:
    kind: str  # "project", "csv" or "jsonl"
    records: int = 0  # pairs (project) or rows (export) read
    matched: int = 0
    added_pairs: int = 0
    verdicts_added: int = 0
    verdicts_present: int = 0  # already in the project, or older than what it holds
    reviewers: set[str] = field(default_factory=set)
