"""The variables a rubric template may read, and their values for one pair.

Every pair, single-turn or conversation, gets the same names, so one rubric judges both:

- ``instruction``, ``response_a``, ``response_b``, ``reference``, ``source``, ``fewshot``
  (the compared turn's request and answers for a conversation pair);
- the conversations: ``messages_a``, ``messages_b`` (each side's every message, a list of
  ``{"role", "content"}``), ``history`` (the messages before the compared answers that
  both sides share), ``turn`` (the compared assistant turn, from 1), ``turns`` (how many
  assistant turns both sides have), ``system`` (the system message, or "");
- an agent's run (``domain/trajectory_text.py``): ``trajectory_a``, ``trajectory_b``
  (each side's steps after the task as text: calls with their arguments, results, the
  final answer; clipped to a stated budget, the clipping said), ``tools`` (the tools the
  agent was given, one line each: name, description, parameters), ``steps_a``,
  ``steps_b``, ``calls_a``, ``calls_b``, ``errors_a``, ``errors_b`` (what each side did).
  A pair that is no trajectory has them too (its one answer is its one step), so a
  trajectory rubric judges any pair; they are worked out only for a rubric that reads
  them;
- FastChat's names (``fastchat/llm_judge/data/judge_prompts.jsonl``): ``question``,
  ``answer_a``, ``answer_b`` (the compared turn's) and per turn ``question_1``,
  ``answer_a_1``, ``answer_b_1``, ``ref_answer_1``, ... A template that reads a turn the
  pair does not have is refused for that pair in one line.

``ref_answer_k`` is the pair's ``reference`` for the compared turn; a conversation pair may
carry every turn's reference answer as a list in its metadata (``reference_turns``).
"""

from __future__ import annotations

import re

from desktop.domain.conversation_comparison import shared_history, turn_fields
from desktop.domain.conversations import Message
from desktop.domain.errors import RubricError
from desktop.domain.pairs import OPTIONAL_FIELDS, PairContent
from desktop.domain.trajectory import run_counts
from desktop.domain.trajectory_text import tools_text, trajectory_text

#: The names of an agent's run (see the module's docstring).
TRAJECTORY_VARIABLES = (
    "trajectory_a",
    "trajectory_b",
    "tools",
    "steps_a",
    "steps_b",
    "calls_a",
    "calls_b",
    "errors_a",
    "errors_b",
)
TRAJECTORY_NAMES = frozenset(TRAJECTORY_VARIABLES)

#: The names every pair has (per-turn names are PER_TURN, below).
TEMPLATE_VARIABLES = (
    "instruction",
    "response_a",
    "response_b",
    "reference",
    "source",
    "fewshot",
    "messages_a",
    "messages_b",
    "history",
    "turn",
    "turns",
    "system",
    "question",
    "answer_a",
    "answer_b",
    *TRAJECTORY_VARIABLES,
)
#: Per-turn names, as FastChat spells them: ``question_1``, ``answer_b_2``, ``ref_answer_1``.
PER_TURN = re.compile(r"(question|answer_a|answer_b|ref_answer)_([1-9][0-9]{0,3})")
#: How the known names are listed in an error.
KNOWN = ", ".join((*TEMPLATE_VARIABLES, "question_N", "answer_a_N", "answer_b_N", "ref_answer_N"))


def is_known(name: str) -> bool:
    return name in TEMPLATE_VARIABLES or PER_TURN.fullmatch(name) is not None


def _messages(conversation: tuple[Message, ...]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in conversation]


def variables_for(
    rubric_name: str,
    requires: tuple[str, ...],
    pair: PairContent,
    fewshot: str,
    used: frozenset[str] = frozenset(),
) -> dict[str, object]:
    """The template variables for one pair. A field the rubric ``requires`` must be
    present, and so must every per-turn name in ``used`` (what the templates read)."""
    for name in requires:
        value = getattr(pair, name)
        if value is None or not value.strip():
            raise RubricError(f"{rubric_name} needs a {name}, but {pair.label} has none")
    variables: dict[str, object] = {
        "instruction": pair.instruction,
        "response_a": pair.response_a,
        "response_b": pair.response_b,
        "fewshot": fewshot,
    }
    for name in OPTIONAL_FIELDS:
        variables[name] = getattr(pair, name) or ""
    a, b = pair.conversations()
    turn = pair.compared_turn
    if pair.is_conversation:
        fields = turn_fields(a, b, turn, _references(pair))
        if pair.reference:
            fields.setdefault(f"ref_answer_{turn}", pair.reference)
        history = shared_history(a, b, turn)
    else:  # one request, one answer each: no need to compare what is known equal
        fields = {"turn": 1, "question": pair.instruction, "question_1": pair.instruction}
        fields |= {"answer_a": pair.response_a, "answer_b": pair.response_b}
        fields |= {"answer_a_1": pair.response_a, "answer_b_1": pair.response_b}
        if pair.reference:
            fields["ref_answer_1"] = pair.reference
        history = a[:1]
    fields.setdefault("system", "")
    variables |= fields
    variables["turns"] = sum(1 for name in fields if name.startswith("answer_a_"))
    variables["messages_a"], variables["messages_b"] = _messages(a), _messages(b)
    variables["history"] = _messages(history)
    if not TRAJECTORY_NAMES.isdisjoint(used):
        variables |= trajectory_variables(pair)
    _check_turns(rubric_name, pair, used, variables)
    return variables


def trajectory_variables(pair: PairContent) -> dict[str, object]:
    """The variables of an agent's run for one pair (``TRAJECTORY_VARIABLES``)."""
    a, b = pair.conversations()
    out: dict[str, object] = {
        "trajectory_a": trajectory_text(a),
        "trajectory_b": trajectory_text(b),
        "tools": tools_text(pair.tools, a, b),
    }
    for side, conversation in (("a", a), ("b", b)):
        counted = run_counts(conversation)
        out[f"steps_{side}"] = counted.steps
        out[f"calls_{side}"] = counted.calls
        out[f"errors_{side}"] = counted.errors
    return out


def _check_turns(
    rubric_name: str, pair: PairContent, used: frozenset[str], variables: dict[str, object]
) -> None:
    """Every per-turn name the templates read is there and no later than the compared
    turn: FastChat's two-turn judges on a pair compared at turn 1 would judge turn 2."""
    for name in sorted(used, key=lambda n: (n in variables, n)):
        match = PER_TURN.fullmatch(name)
        if match is None:
            continue
        k = int(match.group(2))
        if name in variables:
            turn = variables["turn"]
            if isinstance(turn, int) and k > turn:  # (an int: turn_fields gives it)
                raise RubricError(
                    f"{rubric_name} reads {name}, a turn after the one {pair.label} compares"
                    f" (turn {variables['turn']})"
                )
            continue
        if match.group(1) == "ref_answer":
            raise RubricError(
                f"{rubric_name} reads {name}, but {pair.label} has no reference answer for turn {k}"
            )
        have = variables["turns"]
        raise RubricError(
            f"{rubric_name} reads {name}, but {pair.label} has {have} turn"
            f"{'s' if have != 1 else ''}"
        )


def _references(pair: PairContent) -> list[str]:
    """Each turn's reference answer: the metadata's ``reference_turns`` where it is a list
    of texts, else the pair's reference at the compared turn alone."""
    given = pair.metadata.get("reference_turns") if pair.metadata else None
    if isinstance(given, list) and all(isinstance(t, str) for t in given):
        return given
    return []
