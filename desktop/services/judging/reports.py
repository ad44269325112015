"""What a judge job tells while it runs (``JobProgress``) and when it ends
(``JobSummary``): the same for one judge and for several asked in one job."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.adapters.local_server import ServerExit


@dataclass
class JobProgress:
    total: int = 0
    done: int = 0
    ok: int = 0
    parse_failures: int = 0
    errors: int = 0
    skipped: int = 0
    last_pair: int | None = None


@dataclass(frozen=True)
class JobSummary:
    progress: JobProgress
    cancelled: bool
    stopped: str | None  # why the job stopped early, if it did
    elapsed_s: float
    cpu_s: float
    judge_model: str  # the judges asked, ", "-separated where several were
    settings_hash: str  # "" where several judges were asked with different settings
    errors: tuple[str, ...] = field(default_factory=tuple)
    # How each server process that was started again had ended.
    restarts: tuple[ServerExit, ...] = field(default_factory=tuple)
