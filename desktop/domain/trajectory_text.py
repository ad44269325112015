"""An agent's run as a judge reads it: each step after the task in order (what the agent
said, each tool call as its name and arguments, each result under the call it answers),
ending with the final answer, clipped to a stated budget with the clipping said in the
text; the tools the agent was given, by name and description; and what each side did
(steps, calls, errors), the numbers the pair list shows.

The budget is characters, not tokens: a prompt is rendered before any tokenizer is known
(a judge's server has its own), and the run-size estimate counts four characters a token
(``services/judging/run_size.py``). ``SIDE_CHARS`` (40,000 characters, about 10,000
tokens at that rate) is one side's share: two sides and a rubric's own text fit a judge
with a 32k-token context, the smallest its docs would still recommend, and stay far under
``render.MAX_CHARS`` (200,000), the cap on any one prompt. Within it:

- the task is the pair's ``instruction`` (never clipped; a rubric shows it once for both
  sides), and the final answer (the side's last assistant message) is kept whole;
- a call's arguments or a result longer than ``PART_CHARS`` keep their start and end,
  the middle said left out ("[… 8,000 characters left out …]");
- while the whole is over budget, steps are left out from the middle of the run (the
  start shows how the agent set about the task, the end how it finished), in one line
  where they were: "[… 3 of 40 steps and 12,000 characters left out …]".

Pure functions of the pair's sides: ``template_variables`` builds the rubric variables
from them. What each side did (steps, calls, errors) is ``trajectory.run_counts``, the one
definition the window, the list, the export and these variables share.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from desktop.domain.conversations import Message, task_of
from desktop.domain.trajectory import Step, tool_name

#: One side's share of a prompt, in characters (see the module's docstring).
SIDE_CHARS = 40_000
#: The longest a call's arguments or a result is shown before its middle is left out.
PART_CHARS = 4_000
#: The start of a long part kept (the rest of PART_CHARS is its end).
_HEAD = 3_000


def _after_task(side: Sequence[Message]) -> Sequence[Message]:
    task = task_of(side)
    return side[task + 1 :] if task >= 0 else side


def _clipped(text: str, limit: int = PART_CHARS) -> str:
    """A long part's start and end, the middle said left out."""
    if len(text) <= limit:
        return text
    tail = limit - _HEAD
    gone = len(text) - _HEAD - tail
    return f"{text[:_HEAD]}\n[… {gone:,} characters left out …]\n{text[-tail:]}"


def _arguments(arguments: object) -> str:
    if isinstance(arguments, dict) and not arguments:
        return "{}"
    return json.dumps(arguments, ensure_ascii=False, indent=2)


def _message_lines(step: Step, names: dict[str, str], final: bool) -> list[str]:
    """A message's lines (``names``: each call id's tool, for the results after it): what
    it says (a final answer whole), each call, each result."""
    lines: list[str] = []
    said = step.text
    if step.role == "tool" and step.results:
        said = ""  # a tool step's text is its results, shown one by one below
    if said.strip():
        lines.append(said if final else _clipped(said))
    for call in step.calls:
        ident = f" (id {call.id})" if call.id else ""
        if call.id:
            names[call.id] = call.name
        arguments = _clipped(_arguments(call.arguments))
        lines.append(f"→ call {call.name}{ident} with arguments:\n{arguments}")
    for result in step.results:
        name = result.name or (names.get(result.call_id, "") if result.call_id else "")
        label = name or "a tool"
        ident = f" (id {result.call_id})" if result.call_id else ""
        error = " — returned an error" if result.error else ""
        lines.append(f"← result of {label}{ident}{error}:\n{_clipped(result.text)}")
    return lines


def _parts(after: Sequence[Message]) -> tuple[list[str], int, int]:
    """The run after its task cut as the window and the counts cut it
    (``trajectory.Counts``): a step is an assistant message and the results that follow
    it; a later user turn is a part of its own; the final answer (the last assistant
    message) is the last part. Returns the parts, the final answer's place and the steps."""
    final_at = max((i for i, m in enumerate(after) if m.role == "assistant"), default=-1)
    names: dict[str, str] = {}
    parts: list[list[str]] = []
    number = 0
    final_part = -1
    for i, message in enumerate(after):
        step = message.step()
        lines = _message_lines(step, names, i == final_at)
        if step.role == "assistant" or step.is_request or not parts:
            if i == final_at and not step.calls:
                head = "[Final answer]"
                final_part = len(parts)
            elif step.role == "assistant":
                number += 1
                head = f"[Step {number}]"
            else:
                head = f"[{step.role.capitalize()}]"
            parts.append([head, *lines])
        else:  # a tool's results: part of the step whose calls they answer
            parts[-1].extend(lines)
    if final_part < 0:  # the run stopped after a call: no answer, and the judge is told
        final_part = len(parts)
        parts.append(["[No final answer: the run stopped after its last step]"])
    return ["\n".join(part) for part in parts], final_part, number


def trajectory_text(side: Sequence[Message], budget: int = SIDE_CHARS) -> str:
    """One side's run after its task as text a judge reads (see the module's docstring),
    within ``budget`` characters where the final answer lets it."""
    after = list(_after_task(side))
    if not after:
        return "[no step after the task]"
    parts, final_at, steps = _parts(after)
    return _fitted(parts, final_at, budget, steps)


def _fitted(parts: list[str], final_at: int, budget: int, steps: int) -> str:
    """The steps joined, those in the middle left out while the whole is over
    ``budget``: never the final answer; the first and last of the others kept longest.
    Each run of steps left out is one line saying how many and how long they were."""
    sep = "\n\n"
    total = sum(map(len, parts)) + len(sep) * (len(parts) - 1)
    if total <= budget:
        return sep.join(parts)
    keep = [True] * len(parts)
    middle = (len(parts) - 1) / 2  # from the middle outwards: the nearest first
    order = sorted(
        (i for i in range(len(parts)) if i != final_at), key=lambda i: (abs(i - middle), i)
    )
    room = 80  # for the lines that say what was left out
    for i in order:
        if total + room <= budget:
            break
        keep[i] = False
        total -= len(parts[i]) + len(sep)
    out: list[str] = []
    gap = gap_chars = 0
    for i, part in enumerate(parts):
        if not keep[i]:
            gap += 1
            gap_chars += len(part)
            continue
        if gap:
            out.append(gap_line(gap, steps, gap_chars))
            gap = gap_chars = 0
        out.append(part)
    if gap:
        out.append(gap_line(gap, steps, gap_chars))
    return sep.join(out)


def gap_line(left_out: int, steps: int, chars: int) -> str:
    """The line that stands for steps left out of a trajectory shown to a judge."""
    return f"[… {left_out:,} of {steps:,} steps and {chars:,} characters left out …]"


def tools_text(tools: str | None, side_a: Sequence[Message], side_b: Sequence[Message]) -> str:
    """The tools the agent was given (the pair's ``tools``, JSON text of a list of
    definitions in any form), one line each: name, description, parameters; where the
    pair has no definitions, the names the two sides call. "" where neither."""
    definitions: list[dict[str, object]] = []
    if tools:
        try:
            loaded = json.loads(tools)
        except json.JSONDecodeError:
            loaded = []
        definitions = [d for d in loaded if isinstance(d, dict)] if isinstance(loaded, list) else []
    lines = []
    for definition in definitions:
        function = definition.get("function")
        body = function if isinstance(function, dict) else definition
        description = body.get("description")
        parameters = body.get("parameters") or body.get("input_schema")
        line = f"- {tool_name(definition)}"
        if isinstance(description, str) and description.strip():
            line += f": {' '.join(description.split())}"
        if isinstance(parameters, dict) and isinstance(parameters.get("properties"), dict):
            required = parameters.get("required")
            needed = set(required) if isinstance(required, list) else set()
            names = [f"{n}{'' if n in needed else '?'}" for n in parameters["properties"]]
            if names:
                line += f" (parameters: {', '.join(names)})"
        lines.append(line)
    if lines:
        return "\n".join(lines)
    used: dict[str, None] = {}
    for side in (side_a, side_b):
        for message in side:
            if message.raw is not None:
                for call in message.step().calls:
                    used.setdefault(call.name, None)
    return "\n".join(f"- {name}" for name in used)
