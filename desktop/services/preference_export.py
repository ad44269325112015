"""Export labelled preference data for training, from the labels on one dimension: TRL's
conversational preference records (``prompt``, ``chosen``, ``rejected``) or OpenAI's
preference fine-tuning JSONL (``input.messages``, ``preferred_output``,
``non_preferred_output``).

Whose labels: the reviewers' by default (an adjudicator's verdict, else the reviewers'
majority; ``labels.label_of``). A label that rests only on accepted verdicts (Enter on the
judge's) is the judge's in a reviewer's name, so it is left out unless asked for
(``include_accepted``); the judge's own verdicts only with ``include_judge``, above a
confidence floor where one is given. Every record says where it came from: the pair
(``id``, ``pair``), the label's ``source`` (adjudicated, reviewers, accepted, judge), the
``reviewers`` it rests on with how each gave it, and for the judge's its model and
confidence.

Left out and counted: ties (a tie says nothing about which to prefer; "both bad" is one),
pairs without a label, open disputes, pairs marked broken, the judge's labels not asked
for or under the floor, and, for OpenAI's format, a pair whose sides are not one shared
history (two conversations whose earlier answers differ have no single input).

Two agent runs (trajectories) are written in each trainer's tool-calling form
(``conversation_export.trl_run_record``, ``openai_run_record``; ``trajectory_formats``):
TRL's with a ``tools`` column and ``arguments`` dicts, OpenAI's with ``input.tools`` and
the calls inside ``input.messages`` and the outputs. OpenAI's outputs are one assistant
message each, so two runs that differ in more than their last message (the usual case:
each made its own calls) cannot be written there, and are counted (``runs_apart``); the
TRL export holds them whole.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from desktop.adapters.formats.atomic import atomic_text_file, check_target
from desktop.adapters.store.pair_reader import CONVERSATION_COLUMNS, PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.domain import conversation_export as talk
from desktop.domain import numerals
from desktop.domain.errors import TiebreakError
from desktop.domain.judge_policy import policy_for
from desktop.domain.labels import REVIEWERS, Label
from desktop.domain.pair_record import PairColumns
from desktop.domain.pair_view import PairView
from desktop.domain.verdicts import ACCEPTED, Verdict
from desktop.services.rubric_choice import Judge, choose_rubric, dimensions_of, pick_judge

PREFERENCE_FORMATS = ("trl", "openai-preference")
_COLUMNS = (
    "id",
    "external_id",
    "instruction",
    "response_a",
    "response_b",
    *CONVERSATION_COLUMNS,
    "tools",
)
JUDGE = "judge"  # a record's source where the label is the judge's verdict


@dataclass(frozen=True)
class PreferenceReport:
    rows: int
    rubric: str
    dimension: str
    judge_model: str | None
    fmt: str
    ties: int = 0
    undecided: int = 0  # no label (and no judge's verdict asked for)
    not_shared: int = 0  # openai-preference: the sides are not one shared history
    runs_apart: int = 0  # openai-preference: two runs that differ in more than one message
    disputes: int = 0  # reviewers split with no majority, not adjudicated
    broken: int = 0  # marked broken by a reviewer
    accepted: int = 0  # labels resting only on accepted verdicts, not asked for
    judge_only: int = 0  # the judge's verdict alone, not asked for (--include-judge)
    unsure: int = 0  # the judge's verdict under the confidence floor
    from_judge: int = 0  # records whose label is the judge's (with --include-judge)

    def summary(self) -> str:
        left = [
            f"{self.ties:,} ties",
            f"{self.undecided:,} without a label",
            f"{self.disputes:,} open disputes",
            f"{self.broken:,} broken",
        ]
        if self.accepted:
            left.append(f"{self.accepted:,} only accepted from the judge (--include-accepted)")
        if self.judge_only:
            left.append(f"{self.judge_only:,} judged only (--include-judge)")
        if self.unsure:
            left.append(f"{self.unsure:,} judge verdicts under the confidence floor")
        if self.fmt == "openai-preference":
            left.append(f"{self.not_shared:,} not one shared history")
            if self.runs_apart:
                left.append(
                    f"{self.runs_apart:,} pairs of trajectories whose runs differ in more than"
                    " their last message (OpenAI's outputs are one assistant message; --format trl"
                    " keeps whole runs)"
                )
        whose = (
            f"{self.rows - self.from_judge:,} reviewers' labels, {self.from_judge:,} the judge's"
            if self.from_judge
            else "the reviewers' labels"
        )
        return (
            f"{self.rows:,} {self.fmt} records, {whose} (rubric {self.rubric}, dimension"
            f" {self.dimension}, judge {self.judge_model or 'none'}); left out:"
            f" {', '.join(left)}"
        )


def export_preferences(
    store: ProjectStore,
    out: str | Path,
    *,
    fmt: str,
    rubric: str | None = None,
    dimension: str | None = None,
    judge_model: Judge = None,
    include_judge: bool = False,
    min_confidence: float | None = None,
    include_accepted: bool = False,
    progress: Callable[[int], None] | None = None,
) -> PreferenceReport:
    """Write one record per pair whose label on ``dimension`` is A or B, the preferred
    side as chosen, to ``out`` (never over the project; see ``check_target``)."""
    if fmt not in PREFERENCE_FORMATS:
        raise TiebreakError(f"unknown preference format {fmt!r}")
    if min_confidence is not None and not include_judge:
        raise TiebreakError(
            "--min-confidence is a floor for the judge's labels: add --include-judge"
        )
    if min_confidence is not None and not 0.0 <= min_confidence <= 1.0:
        raise TiebreakError(f"--min-confidence must be between 0 and 1, got {min_confidence}")
    out = Path(out)
    check_target(out, keep=store.path)
    name = choose_rubric(store, rubric)
    if name is None:
        raise TiebreakError(f"{store.path}: no verdicts yet, so no preferences to export")
    dim = _dimension(store, name, dimension)
    judge = pick_judge(store, name, judge_model)
    policy = policy_for(judge)
    query = PairQuery(name, policy.judges, _COLUMNS)
    counts = dict.fromkeys(
        ("rows", "ties", "undecided", "not_shared", "disputes", "broken", "accepted"), 0
    )
    counts.update(judge_only=0, unsure=0, from_judge=0, runs_apart=0)
    records = read_pairs(store, query)
    # closed while the project is open, also when a write fails (see exporting)
    with closing(records), atomic_text_file(out, keep=store.path) as fh:
        for record in records:
            view = PairView(record, policy, accepted=include_accepted)
            picked = _pick(view, dim, include_judge, min_confidence)
            if isinstance(picked, str):
                counts[picked] += 1
                continue
            verdict, provenance = picked
            line = _record(record.fields, verdict, fmt)
            if isinstance(line, str):
                counts[line] += 1
                continue
            if provenance["source"] == JUDGE:
                provenance["judge_model"] = policy.name or None
                counts["from_judge"] += 1
            fh.write(numerals.to_json({**line, **provenance}))  # numbers as the file wrote them
            fh.write("\n")
            counts["rows"] += 1
            if progress and counts["rows"] % 5000 == 0:
                progress(counts["rows"])
        store.ensure_read_whole()  # records of two files are no export: nothing is written
    if progress:
        progress(counts["rows"])
    return PreferenceReport(
        rubric=name, dimension=dim, judge_model=policy.name or None, fmt=fmt, **counts
    )


def _pick(
    view: PairView, dim: str, include_judge: bool, floor: float | None
) -> tuple[Verdict, dict[str, object]] | str:
    """The pair's preference on ``dim`` and where it came from, or the count it is left
    out under."""
    record = view.record
    if record.reviews and view.broken:
        return "broken"
    label: Label = view.label(dim)
    if label.disputed:
        return "disputes"
    if label.verdict is not None:
        if label.verdict is Verdict.TIE:
            return "ties"
        source = label.source or REVIEWERS
        if source == REVIEWERS and all(r.mode == ACCEPTED for r in label.given):
            source = ACCEPTED
        return label.verdict, _provenance(record.id, record.external_id, source, label)
    if view.left_out(dim) and not include_judge:
        return "accepted"
    judge, confidence, _ = view.judge(dim)
    if judge is None:
        return "undecided"
    if not include_judge:
        return "judge_only"
    if judge is Verdict.TIE:
        return "ties"
    if floor is not None and (confidence is None or confidence < floor):
        return "unsure"
    out = _provenance(record.id, record.external_id, JUDGE, label)
    out["judge_confidence"] = None if confidence is None else round(confidence, 4)
    return judge, out


def _provenance(
    pair_id: int, external_id: str | None, source: str, label: Label
) -> dict[str, object]:
    return {
        "id": external_id,
        "pair": f"#{pair_id}",
        "source": source,
        "reviewers": [
            {"reviewer": r.reviewer, "verdict": r.answer, "mode": r.mode, "time": r.created_at}
            for r in label.given
        ],
    }


def _record(fields: PairColumns, final: Verdict, fmt: str) -> Mapping[str, object] | str:
    """The pair's record, or the count it is left out under."""
    f = fields
    a, b = talk.sides(f.instruction, f.response_a, f.response_b, f.messages_a, f.messages_b)
    if talk.is_run(a, b, f.tools):
        better, worse = (a, b) if final is Verdict.A else (b, a)
        if fmt == "trl":
            return talk.trl_run_record(better, worse, f.tools, f.turn)
        return talk.openai_run_record(better, worse, f.tools, f.turn) or "runs_apart"
    prompt, on_a, on_b = talk.preference_parts(a, b, f.turn or 1)
    chosen, rejected = (on_a, on_b) if final is Verdict.A else (on_b, on_a)
    if fmt == "trl":
        return talk.trl_record(prompt, chosen, rejected)
    return talk.openai_record(prompt, chosen, rejected) or "not_shared"


def _dimension(store: ProjectStore, rubric: str, dimension: str | None) -> str:
    """The dimension named, else ``overall``, else the rubric's only one."""
    dims = dimensions_of(store, rubric)
    if dimension is not None:
        if dimension not in dims:
            raise TiebreakError(
                f"rubric {rubric} has no dimension {dimension!r} (its dimensions:"
                f" {', '.join(dims) or 'none'})"
            )
        return dimension
    if "overall" in dims:
        return "overall"
    if len(dims) == 1:
        return dims[0]
    raise TiebreakError(
        f"rubric {rubric} has several dimensions ({', '.join(dims)}); choose one with --dimension"
    )
