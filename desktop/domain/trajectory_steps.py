"""Two trajectories as the window shows them: each side's run cut into steps, the two
sides' steps lined up, and each tool call as a card (the call, and the result under it).

A **step** is what an agent does in one go: an assistant message (its text and the calls
it makes) and the tool messages after it that carry the results, each result put under
the call it answers (by id; by tool name where the format has no id, as TRL's). A reader
compares runs step by step, so the steps are lined up by their place: the first step of A
beside the first of B, and so on; a later user turn (or system message) of either side is
a row of its own, and starts the count again for both, so the user turns line up across
the sides and a side that took more steps before one shows the gap (the other side has
``None`` there); what each side answered a turn (an assistant's text closing it) is a row
of its own, after the gap, so the two answers line up too. The system message and the task
come before the steps (the window shows the task as the pair's instruction); the final
answer, each side's last assistant message, is the pair's compared response, so it is no
step unless it calls a tool (a run that stopped on a call).

The rows are made when first read (``Rows``), as the transcript's turns are: what showing
a pair costs here is reading its messages' roles and calls once (for the counts above each
side), never more per row than the rows on screen.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest

from desktop.domain.conversations import Conversation, ReadSide, answers, task_of
from desktop.domain.made_on_read import MadeOnRead
from desktop.domain.trajectory import Counts, Step, ToolCall, ToolResult, run_counts
from desktop.domain.trajectory import step as read_step

#: A folded card's line shows at most this many characters of the arguments and of the
#: result; an unfolded result shows at most ``RESULT_LINES`` lines, ``RESULT_CHARS``
#: characters, before it says how much more there is.
LINE_ARGUMENTS = 60
LINE_RESULT = 40
RESULT_LINES = 8
RESULT_CHARS = 800


def _one_line(text: str, most: int) -> str:
    """``text`` on one line (its runs of spaces and line breaks one space), at most
    ``most`` characters. Read from its start only as far as needed (a result may be long,
    and each row shows it so): the start made one line is where the whole does start."""
    head = text[: 4 * most]
    flat = " ".join(head.split())
    if len(flat) <= most and len(head) < len(text):  # mostly spaces: the whole is read
        flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def _value(value: object) -> str:
    """A JSON value on one line (numbers as the step reads them: ``Message.step``)."""
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Card:
    """One tool call and the result that answered it. ``call`` None: a result that
    answers no call of its step (an earlier step's, say); ``result`` None: a call no
    result answered (the run stopped, or the result never came)."""

    call: ToolCall | None
    result: ToolResult | None

    @property
    def name(self) -> str:
        if self.call is not None:
            return self.call.name
        return self.result.name if self.result is not None and self.result.name else "tool"

    def arguments_line(self, most: int = LINE_ARGUMENTS) -> str:
        """The call as a line: ``get_weather(location="Paris")``."""
        if self.call is None:
            return f"{self.name}(?)"
        arguments = self.call.arguments
        if isinstance(arguments, dict):
            inside = ", ".join(f"{key}={_value(v)}" for key, v in arguments.items())
        else:
            inside = _value(arguments)
        return f"{self.name}({_one_line(inside, most)})"

    def result_line(self, most: int = LINE_RESULT) -> str:
        """The result as a line: ``-> 14°C…``, ``-> error: …``, or that none came."""
        if self.result is None:
            return "-> (no result)"
        said = _one_line(self.result.text, most) or "(empty)"
        return f"-> error: {said}" if self.result.error else f"-> {said}"

    def line(self) -> str:
        """The card folded to one line: ``get_weather(location="Paris")  -> 14°C…``."""
        return f"{self.arguments_line()}  {self.result_line()}"

    def arguments_text(self) -> str:
        """The arguments pretty-printed (JSON, two spaces)."""
        return self.call.arguments_text() if self.call is not None else ""

    @property
    def error(self) -> bool:
        return self.result is not None and self.result.error


def clipped(text: str, lines: int = RESULT_LINES, chars: int = RESULT_CHARS) -> tuple[str, int]:
    """A long result folded: its first ``lines`` lines (at most ``chars`` characters) and
    how many characters are left out (0: all of it)."""
    end = min(len(text), chars)
    at = -1
    for _ in range(lines):
        at = text.find("\n", at + 1, end)
        if at < 0:
            break
    else:
        end = at
    return text[:end], len(text) - end


@dataclass(frozen=True)
class Move:
    """One side's step: an assistant message and the results of its calls (``role``
    "assistant"), or a request that starts a new stretch (``role`` "user" or "system"),
    or results answering no message of the step (``role`` "tool"). ``first`` and ``last``
    are its messages' places, counted from 1 after the task (as ``trajectory.counts``
    counts steps)."""

    role: str
    text: str
    cards: tuple[Card, ...]
    first: int
    last: int

    @property
    def errors(self) -> int:
        return sum(card.error for card in self.cards)

    def preview(self, most: int = 90) -> str:
        return _one_line(self.text, most)

    def lines(self) -> list[str]:
        """The step folded: a line of its text (where it has any), a line a card."""
        out = [self.preview()] if self.text.strip() else []
        return out + [card.line() for card in self.cards]

    def compared(self) -> str:
        """What D compares of the step: its text, each call pretty-printed, each result."""
        parts = [self.text]
        for card in self.cards:
            parts += [card.arguments_line(10**9), card.arguments_text()]
            parts.append(card.result.text if card.result is not None else "")
        return "\n".join(parts)


@dataclass(frozen=True)
class StepRow:
    """A row of the window: step ``number`` of both sides (``kind`` "step"), or a
    request that lines up across them (``kind`` "request": a later user turn, or a
    system message). A side with nothing there (it took fewer steps) holds None."""

    number: int  # the row's place, from 1
    kind: str
    a: Move | None
    b: Move | None

    @property
    def shared(self) -> bool:
        """A request the two sides have the same: shown once, across both columns."""
        return (
            self.kind == "request"
            and self.a is not None
            and self.b is not None
            and (self.a.role, self.a.text) == (self.b.role, self.b.text)
        )

    @property
    def role(self) -> str:
        """Its first side's role: "assistant" for a step, "user" or "system" for a request."""
        move = self.a or self.b
        return move.role if move is not None else "assistant"

    @property
    def gap(self) -> str | None:
        """The side that has nothing in this row ("a" or "b"), if one has not."""
        return "a" if self.a is None else "b" if self.b is None else None

    @property
    def same(self) -> bool:
        """Both sides did the same here (the same text, calls and results)."""
        a, b = self.a, self.b
        return a is not None and b is not None and a.compared() == b.compared()


class Rows(MadeOnRead[StepRow]):
    """A trajectory pair's rows, each made when first read."""


@dataclass(frozen=True)
class Trajectories:
    """Two runs of one task as the window shows them."""

    system: str | None  # the system message both share (None: there is none)
    task: str
    counts_a: Counts  # what each side did after the task (trajectory.counts)
    counts_b: Counts
    moves_a: int  # each side's steps (its rows with something on that side)
    moves_b: int
    rows: Rows


_Span = tuple[str, int, int]  # a move's kind ("step" or "request") and its messages


class _Side:
    """A side's messages after its task, each read as a step only when a row or the
    counts need it: the rows are cut from the roles alone (``role``), so a pair of 200
    steps is not read whole to be shown."""

    def __init__(self, side: Conversation) -> None:
        task = task_of(side)
        self.whole = side
        self.messages = side[task + 1 :]
        decoded = side.decoded if isinstance(side, ReadSide) else None
        self._whole_decoded = decoded
        self._decoded = decoded[task + 1 :] if decoded is not None else None
        on = answers(side)
        self.final = on[-1] - task - 1 if on else -1  # the final answer (-1: none after)
        self._steps: dict[int, Step] = {}

    def __len__(self) -> int:
        return len(self.messages)

    def step(self, i: int) -> Step:
        found = self._steps.get(i)
        if found is None:
            m, decoded = self.messages[i], self._decoded
            if m.raw is not None and decoded is not None:  # as Message.step reads it
                found = self._steps[i] = read_step(decoded[i])
            else:
                found = self._steps[i] = m.step()
        return found

    def role(self, i: int) -> str:
        """Its role as a reader sees it (an Anthropic user message of results: "tool")."""
        m = self.messages[i]
        if m.role == "user" and m.raw is not None and '"tool_result"' in m.raw:
            return self.step(i).role
        return m.role

    def counts(self) -> Counts:
        """``trajectory.run_counts`` of the side, on every pair shown (it reads only the
        messages that may call a tool or carry an error)."""
        return run_counts(self.whole, self._whole_decoded)

    def spans(self) -> list[list[_Span]]:
        """Its messages cut into stretches, each begun by a request but the first: a
        stretch is the list of its moves, each a kind and the range of its messages."""
        stretches: list[list[_Span]] = [[]]
        i, n = 0, len(self.messages)
        while i < n:
            role = self.role(i)
            if role in ("user", "system"):
                stretches.append([("request", i, i + 1)])
                i += 1
                continue
            if i == self.final and not self.step(i).calls:
                i += 1  # the final answer: the pair's compared response, not a step
                continue
            end = i + 1
            if role == "assistant":
                while end < n and self.role(end) == "tool":
                    end += 1
            stretches[-1].append(("step", i, end))
            i = end
        return stretches

    def answer_last(self, stretch: list[_Span]) -> tuple[list[_Span], _Span | None]:
        """A stretch's moves, and apart from them its answer: a last move that is an
        assistant's text alone (what it said to the request before the next one)."""
        if stretch:
            kind, start, end = stretch[-1]
            alone = kind == "step" and end - start == 1 and self.role(start) == "assistant"
            if alone and not self.step(start).calls:
                return stretch[:-1], stretch[-1]
        return stretch, None

    def move(self, span: _Span) -> Move:
        kind, start, end = span
        part = [self.step(i) for i in range(start, end)]
        if kind == "request":
            return Move(part[0].role, part[0].text, (), start + 1, start + 1)
        text, cards = _cards(part)
        role = "assistant" if part[0].role == "assistant" else "tool"
        return Move(role, text, cards, start + 1, end)


def _cards(step_list: Sequence[Step]) -> tuple[str, tuple[Card, ...]]:
    """A step's text and cards: each call with the result that answers it (by id, else by
    the tool's name: the first unanswered call of it), then results answering none."""
    head = step_list[0]
    calls = list(head.calls) if head.role == "assistant" else []
    answered: list[ToolResult | None] = [None] * len(calls)
    loose: list[ToolResult] = []
    results = [r for s in step_list for r in s.results]
    for result in results:
        match = next(
            (
                k
                for k, call in enumerate(calls)
                if answered[k] is None
                and (
                    (result.call_id is not None and call.id == result.call_id)
                    or (result.call_id is None and call.name == result.name)
                )
            ),
            None,
        )
        if match is None:
            loose.append(result)
        else:
            answered[match] = result
    cards = [Card(c, r) for c, r in zip(calls, answered, strict=True)]
    cards += [Card(None, r) for r in loose]
    text = head.text if head.role == "assistant" else ""
    return text, tuple(cards)


def trajectories(a: Conversation, b: Conversation) -> Trajectories:
    """Two runs of one task (``conversation_comparison.compare`` says they are) lined up
    step by step (see the module's docstring)."""
    side_a, side_b = _Side(a), _Side(b)
    layout: list[tuple[_Span | None, _Span | None]] = []
    none: list[_Span] = []
    for mine, theirs in zip_longest(side_a.spans(), side_b.spans(), fillvalue=none):
        (mine, said_a), (theirs, said_b) = side_a.answer_last(mine), side_b.answer_last(theirs)
        layout.extend(zip_longest(mine, theirs))
        if said_a is not None or said_b is not None:  # the answers to a turn line up too
            layout.append((said_a, said_b))

    def make(index: int) -> StepRow:
        left, right = layout[index]
        kind = (left or right or ("step", 0, 0))[0]
        return StepRow(
            index + 1,
            kind,
            side_a.move(left) if left is not None else None,
            side_b.move(right) if right is not None else None,
        )

    task = task_of(a)
    system = next((m.content for m in a[:task] if m.role == "system"), None)
    return Trajectories(
        system,
        a[task].content,
        side_a.counts(),
        side_b.counts(),
        sum(left is not None for left, _ in layout),
        sum(right is not None for _, right in layout),
        Rows(len(layout), make),
    )


def summary(side: str, counted: Counts) -> str:
    """What the window says above a side: its steps, tool calls, errors and tools, as the
    list's columns and the export count them (``trajectory.Counts``)."""
    line = f"{side}: {counted.steps:,} step{'s' if counted.steps != 1 else ''}"
    line += f" · {counted.calls:,} tool call{'s' if counted.calls != 1 else ''}"
    if counted.errors:
        line += f" · {counted.errors:,} error{'s' if counted.errors != 1 else ''}"
    if counted.tools:
        line += f" · tools: {', '.join(counted.tools)}"
    return line
