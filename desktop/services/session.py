"""A reviewer's session on one project: the chosen rubric, whose verdicts are shown (any
judge with answers: an imported annotator, a command-line run, a profile), which profile
Ctrl+J asks, the current pair and the verdict edits. Plain Python, so the window stays a
thin layer; what the window computes off the GUI thread is written beside the part that
shows it (services/background.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Collection
from pathlib import Path

from desktop.adapters.profiles_file import get_profile, load_profiles, profiles_path
from desktop.adapters.store import open_project, pair_filters
from desktop.adapters.store.pair_reader import Ordering
from desktop.adapters.store.pair_steps import holds_trajectories
from desktop.adapters.store.pairs import count_pairs, get_pair, pairs_if_readable
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import rubric_names
from desktop.domain.errors import TiebreakError
from desktop.domain.pair_turns import pair_turns
from desktop.domain.pairs import Pair
from desktop.domain.profiles import ModelProfile
from desktop.domain.trajectory import TRAJECTORY_RUBRIC
from desktop.domain.verdicts import Verdict
from desktop.services import judges, pair_list, pair_verdicts
from desktop.services.app_settings import AppSettings
from desktop.services.background import ProjectFile
from desktop.services.blind_review import BlindReview
from desktop.services.kept_choices import KeptChoices
from desktop.services.overrides import default_reviewer
from desktop.services.project_rubrics import dimensions_for, rubric_choices
from desktop.services.review_edits import ReviewEdits

DEFAULT_RUBRIC = "just-eval"  # constrained JSON: every verdict parses, even from the local model
#: The default of a project of agent trajectories: its prompt shows each run step by step.
_JUDGE_SETTING = "judge:"  # + a rubric's name: the project's setting of the judge shown on it


class ReviewSession:
    def __init__(self, path: Path, settings: AppSettings) -> None:
        self.path = path
        self.settings = settings
        self.store = open_project(path)
        self.project = ProjectFile(path, self.store)  # as background work opens it
        # A verdict reaches the file itself before the window shows it saved (a checkpoint,
        # about a millisecond): a move to another file system, which copies the file alone,
        # keeps it. (A copy after each pause lost a verdict given a second before the move.)
        self.current: Pair | None = None
        self.kept = KeptChoices(self.store)  # the rubric and judges chosen, for next time
        self.blind = BlindReview()  # what this window has shown of the judge
        self.edits = ReviewEdits(self)  # the reviewer's edits, each undoable exactly
        self.profile: ModelProfile = (
            get_profile(settings.profile)
            if settings.profile in load_profiles()
            else get_profile("local")
        )
        saved = self.store.get_setting("rubric")
        self.rubric_name = saved if saved in rubric_choices(self.store) else _default(self.store)
        self.dimensions = dimensions_for(self.store, self.rubric_name)
        self.shown_judge = _remembered_judge(self.store, self.rubric_name, self.kept)

    @classmethod
    def open(cls, path: Path, settings: AppSettings) -> ReviewSession:
        return cls(path, settings)

    def close(self) -> None:
        self.kept.write()
        with contextlib.suppress(TiebreakError):  # a locked or lost file must not block closing
            self.blind.save(self.store)
        self.store.close()

    def file_lost(self) -> str | None:
        """The one line once the project file was moved, deleted or replaced while open
        (the session has then let go of it, and refuses every read and write with that
        line); None while the path still names it. A stat and a pragma: the window asks
        whenever the file changes, and every second."""
        error = self.store.verify()
        return None if error is None else str(error)

    # ---- choices ----------------------------------------------------------------------
    def profile_choices(self) -> list[str]:
        return list(load_profiles())

    def profiles_file(self) -> Path:
        """The file the profiles are kept in (another process may write it)."""
        return profiles_path()

    def reload_profile(self) -> bool:
        """The profile Ctrl+J asks read again from the file (it may have been changed
        from the command line); True if it changed. One no longer there stays asked."""
        now = load_profiles().get(self.profile.name)
        if now is None or now == self.profile:
            return False
        self.profile = now
        return True

    def choose_rubric(self, name: str) -> None:
        self.dimensions = dimensions_for(self.store, name)
        self.rubric_name = name
        self.kept.keep("rubric", name)
        self.shown_judge = _remembered_judge(self.store, name, self.kept)

    def choose_profile(self, name: str) -> None:
        """The profile Ctrl+J asks; whose verdicts are shown is chosen apart."""
        self.profile = get_profile(name)
        self.settings.profile = name

    def judge_names(self) -> list[judges.JudgeChoice]:
        """The rubric's judges, most recent answers first, not yet counted (index seeks:
        quick enough while the window opens; the judge picker counts them off the GUI thread)."""
        return judges.judge_names(self.store, self.rubric_name)

    def choose_judge(self, name: str | None) -> None:
        """Show ``name``'s verdicts, and again when the project is next opened on this
        rubric: another judge's answers arriving since must not take its place unseen."""
        self.shown_judge = name
        if name is not None:
            self.kept.keep(_JUDGE_SETTING + self.rubric_name, name)

    def checked(self, _result: object = None) -> None:
        """The check for damage is done (off the GUI thread): the choices that waited for
        it are written now."""
        self.kept.checked()

    @property
    def judge_model(self) -> str:
        """The judge whose verdicts are shown: the one chosen, else (a rubric nobody has
        answered yet) the model Ctrl+J asks, so its first answer shows as it arrives."""
        return self.shown_judge or self.profile.model

    # ---- reading ----------------------------------------------------------------------
    def rows(
        self,
        *,
        search: str = "",
        filter_name: str = "all",
        after_id: int = 0,
        limit: int,
        ids: Collection[int] = (),
        category: str | None = None,
        generator: str | None = None,
        order: Ordering | None = None,
    ) -> list[pair_list.ListRow]:
        return pair_list.list_rows(
            self.store,
            self.rubric_name,
            self.judge_model,
            search=search,
            filter_name=filter_name,
            after_id=after_id,
            limit=limit,
            reviewer=self.reviewer(),
            ids=ids,
            category=category,
            generator=generator,
            order=order,
        )

    def filter_values(self) -> tuple[list[str], list[str]]:
        """The categories and the generators the list may be filtered by."""
        return pair_filters.categories(self.store), pair_filters.generators(self.store)

    def holds_trajectories(self) -> bool:
        """Whether the project holds agent trajectories: the list then shows each pair's
        steps, tool calls and tool errors, and offers their filters (one seek)."""
        return holds_trajectories(self.store.conn)

    def list_rows_for(self, pair_ids: Collection[int]) -> list[pair_list.ListRow]:
        """The list rows of these pairs, in id order, in one query per 500."""
        ordered = sorted(pair_ids)
        rows: list[pair_list.ListRow] = []
        for start in range(0, len(ordered), 500):
            chunk = ordered[start : start + 500]
            rows += self.rows(limit=len(chunk), ids=chunk)
        return rows

    def load_pair(self, pair_id: int) -> Pair | None:
        self.current = get_pair(self.store, pair_id)
        return self.current

    def read_ahead(self, pair_ids: Collection[int]) -> None:
        """The pairs a reviewer may show next (the list's rows either side of the one
        shown) read and laid out now, while the window waits for a key: a conversation of
        10,000 messages then shows on J as quickly as a single turn does, its sides and
        turns found kept (``conversations.sides_from_json``, ``pair_turns``). Only a
        head start: a project that cannot be read now says so when a pair is shown."""
        for pair in pairs_if_readable(self.store, list(pair_ids)):
            pair_turns(pair)

    def verdict_views(self) -> pair_verdicts.PairVerdicts | None:
        if self.current is None or self.current.id is None:
            return None
        return pair_verdicts.pair_verdicts(
            self.store,
            self.current.id,
            self.rubric_name,
            self.judge_model,
            self.dimensions,
            self.reviewer(),
        )

    # ---- writing ----------------------------------------------------------------------
    def reviewer(self) -> str:
        return self.settings.reviewer or default_reviewer()

    def set_verdict(
        self, pair_id: int, dimension: str, verdict: Verdict | None, *, note: str | None = None
    ) -> None:
        """The reviewer's verdict, as a verdict key gives it (``note``: replaces theirs)."""
        state = self.edits.answered(pair_id, dimension, verdict)
        self.edits.write(pair_id, dimension, state if note is None else state._replace(note=note))

    def hidden_judge(self, views: pair_verdicts.PairVerdicts | None) -> frozenset[str]:
        """The dimensions of the pair shown whose judge verdict blind mode hides; the judge's
        other verdicts are on screen, so no verdict given on those from now on is blind."""
        pair_id = self.current.id if self.current is not None else None
        if views is None or pair_id is None:
            return frozenset()
        rubric, reviewer = self.rubric_name, self.reviewer()
        hidden = self.blind.hidden(
            self.store, pair_id, rubric, reviewer, views, blind=self.settings.blind
        )
        self.blind.shown(pair_id, rubric, reviewer, self.judge_model, views, hidden)
        return hidden

    def reveal_judge(self) -> None:
        """The judge's whole answer on the pair shown was opened (its raw completion)."""
        if self.current is not None and self.current.id is not None:
            pair, judge = self.current.id, self.judge_model
            self.blind.reveal(pair, self.rubric_name, self.reviewer(), judge, self.dimensions)

    def pair_total(self) -> int:
        """Pairs in the project (one index count: milliseconds on 100,000 pairs)."""
        return count_pairs(self.store)


def _default(store: ProjectStore) -> str:
    """The rubric a project opens on before one is chosen: the first it has answers for."""
    used = rubric_names(store)
    if used:
        return used[0]
    return TRAJECTORY_RUBRIC if holds_trajectories(store.conn) else DEFAULT_RUBRIC


def _remembered_judge(store: ProjectStore, rubric: str, kept: KeptChoices) -> str | None:
    """The judge last chosen on ``rubric``, while it has answers; else the one with the
    most recent answers."""
    names = [choice.judge for choice in judges.judge_names(store, rubric)]
    chosen = kept.get(_JUDGE_SETTING + rubric)
    if chosen in names:
        return chosen
    return names[0] if names else None
