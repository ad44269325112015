"""Two long agent runs of one task, in OpenAI's chat form, for the window's tests and its
benchmark: ``steps`` tool calls each answered (results of one line to a few thousand
characters, every tenth an error), a sentence every third step, then the final answer."""

from __future__ import annotations

import json
from typing import Any

TOOLS = ("search_code", "read_file", "run_tests", "edit_file")


def long_run(steps: int, answer: str, seed: int = 0) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent. Use the tools."},
        {"role": "user", "content": "Make the failing test in tests/test_paging.py pass."},
    ]
    for k in range(1, steps + 1):
        call_id = f"call_{k:04d}"
        name = TOOLS[(k + seed) % len(TOOLS)]
        arguments = {"path": f"src/module_{(k * 7 + seed) % 50}.py", "line": k * 3 + seed}
        text = f"Step {k}: looking at module {(k * 7 + seed) % 50}." if k % 3 == 0 else None
        out.append(
            {
                "role": "assistant",
                "content": text,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments)},
                    }
                ],
            }
        )
        if k % 10 == 0:
            result = f"Error: {name} timed out after 30 s"
        else:
            lines = 1 + (k * 13 + seed) % 60
            result = "\n".join(f"{k}:{n}: def page_{n}(items, size={n}):" for n in range(lines))
        out.append({"role": "tool", "tool_call_id": call_id, "content": result})
    out.append({"role": "assistant", "content": answer})
    return out


def long_pair(steps_a: int = 200, steps_b: int = 200, pair_id: str = "long") -> dict[str, Any]:
    return {
        "id": pair_id,
        "messages_a": long_run(steps_a, "Fixed: the page size was off by one.", 0),
        "messages_b": long_run(steps_b, "I could not make the test pass.", 1),
    }
