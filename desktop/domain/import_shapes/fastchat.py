"""FastChat's own MT-bench files (lm-sys/FastChat, ``fastchat/llm_judge``): questions
(``question_id, category, turns[]``), one answer file per model (``question_id, model_id,
choices[0].turns[]``), GPT-4's reference answers, and pairwise judgments
(``model_judgment/*_pair.jsonl``: ``question_id, model_1, model_2, g1_winner, g2_winner,
judge, g1_judgment, g2_judgment, turn``, as ``common.play_a_match_pair`` writes them).

``fastchat_records`` pairs the answers per question as the user asks (every pair of
models, A the first by name, as ``gen_judgment.py --mode pairwise-all`` pairs a sorted
list; or each model against a baseline, A the baseline, as Tiebreak's win rates read
them), one pair per turn: both whole conversations (every turn, as FastChat's multi-turn
judge sees them), compared at that turn. The reference is that turn's reference answer
(the reference file's, else the question's own ``reference``); all of them stay in
metadata as ``reference_turns`` (FastChat's ``ref_answer_1``, ``ref_answer_2``).
A judgment's two games are one judge's answers in both orders: ``g1`` showed
``model_1`` as A, ``g2`` swapped them (FastChat maps both back to model names); an
``error`` winner is a parse failure with the judgment kept. The judge is named by its
model (``gpt-4``), as ``compute_agreement.py`` pools its prompts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from desktop.domain.conversations import Conversation, Message
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import (
    Columns,
    FileAnswer,
    JudgeRubric,
    Shape,
    ShapedRecord,
)
from desktop.domain.import_shapes.conversation_parts import BATCH, RUBRIC, compared_fields
from desktop.domain.results import Order, Status
from desktop.domain.verdicts import Verdict

Placed = tuple[str, Mapping[str, object]]  # (where, record), as the readers give them
_NAMES = {"conversation_a": "model answers", "conversation_b": "model answers", "turn": "turn"}
_KEPT = ("question_id", "reference_turns")


class FastChatPairs(Shape):
    """The pairs ``fastchat_records`` makes of a FastChat folder (never a file's own)."""

    name = "fastchat"
    title = "FastChat's MT-bench folder (question.jsonl, model_answer/, model_judgment/)"
    marks = ("fastchat_pair",)
    rubric = RUBRIC
    batch = BATCH
    judge_rubric = JudgeRubric(
        title="FastChat MT-bench pairwise judgment",
        origin="judgments imported from FastChat's model_judgment/*_pair.jsonl",
    )

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        if "fastchat_pair" not in names:
            raise ImportDataError(
                f"{where}: not a FastChat folder's pair; import the folder that holds"
                " question.jsonl and model_answer/"
            )
        return Columns.of({})

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        a, b, turn = fields["conversation_a"], fields["conversation_b"], fields["turn"]
        model_a, judged = fields["model_a"], fields.get("judgments", ())
        references = fields.get("reference_turns") or ()
        # (``fastchat_records`` made the record: its members are of these types)
        assert isinstance(a, tuple) and isinstance(b, tuple) and isinstance(turn, int)
        assert isinstance(model_a, str) and isinstance(judged, list | tuple)
        assert isinstance(references, list | tuple)
        values: dict[str, object] = dict(compared_fields(where, a, b, turn, _NAMES))
        values.update(
            model_a=model_a,
            model_b=fields["model_b"],
            category=fields.get("category"),
            reference=references[turn - 1] if len(references) >= turn else None,
        )
        metadata = {k: fields[k] for k in _KEPT if fields.get(k) is not None}
        answers = tuple(
            answer for place, judgment in judged for answer in _answers(place, judgment, model_a)
        )
        return ShapedRecord(values, metadata, answers=answers)


class FastChatJudgments(Shape):
    """A judgment file on its own names its pairs by question and models, not texts."""

    name = "fastchat-judgments"
    title = "FastChat's pairwise judgments (import their folder)"
    marks = ("g1_winner",)

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        raise ImportDataError(
            f"{where}: a FastChat judgment names its pair by question and models, without"
            " their texts; import the folder that holds question.jsonl, model_answer/ and"
            " model_judgment/ (tiebreak import PROJECT FOLDER)"
        )


_GAMES = (("g1_winner", "g1_judgment"), ("g2_winner", "g2_judgment"))


def _answers(where: str, judgment: Mapping[str, object], model_a: str) -> Iterator[FileAnswer]:
    judge = judgment.get("judge")
    name = judge[0] if isinstance(judge, list) and judge else judge
    if not isinstance(name, str) or not name:
        raise ImportDataError(f"{where}: field 'judge': names no judge model")
    first = Order.AB if judgment["model_1"] == model_a else Order.BA
    for (winner_field, text_field), order in zip(_GAMES, (first, _other(first)), strict=True):
        winner = judgment.get(winner_field)
        raw = judgment.get(text_field)
        raw = raw if isinstance(raw, str) else str(winner)
        if winner == "error":
            yield FileAnswer(name, {}, raw, order=order, status=Status.PARSE_FAILURE)
            continue
        verdict = _winner(where, winner_field, winner, judgment["model_1"] == model_a)
        yield FileAnswer(name, {"overall": verdict}, raw, order=order)


def _other(order: Order) -> Order:
    return Order.BA if order is Order.AB else Order.AB


def _winner(where: str, field: str, winner: object, model_1_is_a: bool) -> Verdict:
    if winner == "tie":
        return Verdict.TIE
    if winner in ("model_1", "model_2"):
        return Verdict.A if (winner == "model_1") == model_1_is_a else Verdict.B
    raise ImportDataError(
        f"{where}: field {field!r}: {winner!r} is not model_1, model_2, tie or error"
    )


def fastchat_records(
    questions: Iterable[Placed],
    answers: Mapping[str, Iterable[Placed]],
    references: Iterable[Placed],
    judgments: Iterable[Placed],
    pair_with: str | None,
) -> Iterator[tuple[str, dict[str, object]]]:
    """The pair records of a FastChat folder, one per question, model pair and turn, in
    question order. ``answers``: each model's answer records (named by ``model_id``,
    else the key); ``pair_with``: ``all`` (None) or a baseline model."""
    by_model = {model: _answer_turns(model, records) for model, records in answers.items()}
    models = sorted(by_model)
    if pair_with in (None, "all"):
        couples = [(x, y) for i, x in enumerate(models) for y in models[i + 1 :]]
    elif pair_with in by_model:
        couples = [(pair_with, m) for m in models if m != pair_with]
    else:
        raise ImportDataError(
            f"--pair-with {pair_with}: no answers from that model (models: {', '.join(models)})"
        )
    refs = {_qid(w, r): _turns(w, r.get("choices"), "choices") for w, r in references}
    by_game = _judgments_by_game(judgments)
    made: set[tuple[str, frozenset[str], int]] = set()
    for where, question in questions:
        qid = _qid(where, question)
        asked = question.get("turns")
        if not isinstance(asked, list) or not asked or not all(type(t) is str for t in asked):
            raise ImportDataError(f"{where}: field 'turns': must be a list of texts")
        own = question.get("reference")
        ref_turns = refs.get(qid) or (own if isinstance(own, list) else None)
        sides = {m: _conversation(asked, by_model[m], qid, where, m) for m in models}
        for turn in range(1, len(asked) + 1):
            for model_a, model_b in couples:
                game = (qid, frozenset((model_a, model_b)), turn)
                made.add(game)
                yield (
                    f"{where} (turn {turn}, {model_a} vs {model_b})",
                    {
                        "fastchat_pair": True,
                        "question_id": question.get("question_id"),
                        "category": question.get("category"),
                        "model_a": model_a,
                        "model_b": model_b,
                        "conversation_a": sides[model_a],
                        "conversation_b": sides[model_b],
                        "turn": turn,
                        "reference_turns": ref_turns,
                        "judgments": by_game.get(game, ()),
                    },
                )
    for game, placed in by_game.items():
        if game not in made:
            where = placed[0][0]
            raise ImportDataError(
                f"{where}: a judgment of {' and '.join(sorted(game[1]))} on question"
                f" {game[0]}, turn {game[2]}: no such pair among the answers"
                + ("" if pair_with in (None, "all") else f" paired with {pair_with}")
            )


def _qid(where: str, record: Mapping[str, object]) -> str:
    qid = record.get("question_id")
    if qid is None or isinstance(qid, (list, dict, bool)):
        raise ImportDataError(f"{where}: field 'question_id' is missing")
    return str(qid)


def _turns(where: str, choices: object, field: str) -> list[str]:
    """``choices[0].turns``, checked."""
    first = choices[0] if isinstance(choices, list) and choices else None
    if not isinstance(first, dict) or "turns" not in first:
        raise ImportDataError(f"{where}: field {field!r}: no choices[0].turns")
    turns = first["turns"]
    if not isinstance(turns, list) or not all(type(t) is str for t in turns):
        raise ImportDataError(f"{where}: field {field!r}: choices[0].turns must be texts")
    return turns


def _answer_turns(model: str, records: Iterable[Placed]) -> dict[str, tuple[str, list[str]]]:
    out: dict[str, tuple[str, list[str]]] = {}
    for where, record in records:
        out[_qid(where, record)] = (where, _turns(where, record.get("choices"), "choices"))
    return out


def _conversation(
    asked: list[str],
    answers: Mapping[str, tuple[str, list[str]]],
    qid: str,
    where: str,
    model: str,
) -> Conversation:
    if qid not in answers:
        raise ImportDataError(f"{where}: model {model} has no answer to question {qid}")
    place, turns = answers[qid]
    if len(turns) != len(asked):
        raise ImportDataError(
            f"{place}: field 'choices': {len(turns)} answer turns for the question's"
            f" {len(asked)} turns"
        )
    out: list[Message] = []
    for question, answer in zip(asked, turns, strict=True):
        out += [Message("user", question), Message("assistant", answer)]
    return tuple(out)


def _judgments_by_game(
    judgments: Iterable[Placed],
) -> dict[tuple[str, frozenset[str], int], list[Placed]]:
    out: dict[tuple[str, frozenset[str], int], list[Placed]] = {}
    for where, judgment in judgments:
        pair = (judgment.get("model_1"), judgment.get("model_2"))
        models = [m for m in pair if isinstance(m, str) and m]
        if len(models) != 2:
            raise ImportDataError(f"{where}: field 'model_1': a judgment names two models")
        turn = judgment.get("turn")
        if turn is None:  # older files: the prompt's name says which turn
            judge = judgment.get("judge")
            prompt = judge[1] if isinstance(judge, list) and len(judge) > 1 else ""
            turn = 2 if str(prompt).endswith("multi-turn") else 1
        try:
            turn = int(str(turn))
        except ValueError:
            raise ImportDataError(f"{where}: field 'turn': {turn!r} is not a turn") from None
        game = (_qid(where, judgment), frozenset(models), turn)
        out.setdefault(game, []).append((where, judgment))
    return out
