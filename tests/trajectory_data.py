"""Trajectories written as each format's documentation shows them, for the tests.

- OpenAI chat (platform.openai.com/docs/guides/function-calling): an assistant message
  with ``content`` null and ``tool_calls`` whose ``function.arguments`` is a JSON string,
  then ``tool`` messages with ``tool_call_id``; ``tools`` a list of
  ``{"type": "function", "function": {"name", "description", "parameters"}}``.
- TRL (huggingface.co/docs/trl/dataset_formats#tool-calling): ``tool_calls`` of
  ``{"type": "function", "function": {"name", "arguments": {...}}}`` (a dict, no id), the
  result a ``tool`` message with ``name``; ``tools`` beside the messages.
- Anthropic Messages (docs.anthropic.com, tool use): assistant content blocks ``text``
  and ``tool_use`` (``id``, ``name``, ``input``), the results ``tool_result`` blocks
  (``tool_use_id``, ``content``, ``is_error``) in a ``user`` message.
"""

from __future__ import annotations

import json
from typing import Any

SYSTEM = {"role": "system", "content": "You are a weather assistant."}
TASK = {"role": "user", "content": "What is the weather like in Paris today?"}

OPENAI_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get current temperature for a given location.",
            "parameters": {
                "type": "object",
                "properties": {"location": {"type": "string", "description": "City"}},
                "required": ["location"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    }
]


def openai_run(
    answer: str, *, city: str = "Paris, France", calls: int = 1, error: bool = False
) -> list[dict[str, Any]]:
    """A run in OpenAI's chat form: ``calls`` calls of get_weather, each answered, then
    the final answer."""
    out: list[dict[str, Any]] = [SYSTEM, TASK]
    for k in range(1, calls + 1):
        call_id = f"call_{k:03d}"
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": "get_weather",
                            "arguments": json.dumps({"location": city}),
                        },
                    }
                ],
            }
        )
        result = "Error: service unavailable" if error and k == 1 else "14°C, light rain"
        out.append({"role": "tool", "tool_call_id": call_id, "content": result})
    out.append({"role": "assistant", "content": answer})
    return out


TRL_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "multiply",
            "description": "A function that multiplies two numbers",
            "parameters": {
                "type": "object",
                "properties": {
                    "a": {"type": "number", "description": "The first number"},
                    "b": {"type": "number", "description": "The second number"},
                },
                "required": ["a", "b"],
            },
        },
    }
]


def trl_run(answer: str, a: int = 3, b: int = 4) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "What is 3 * 4?"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "type": "function",
                    "function": {"name": "multiply", "arguments": {"a": a, "b": b}},
                }
            ],
        },
        {"role": "tool", "name": "multiply", "content": str(a * b)},
        {"role": "assistant", "content": answer},
    ]


def anthropic_run(answer: str, *, error: bool = False) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "What's the weather like in San Francisco?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll check the current weather in San Francisco."},
                {
                    "type": "tool_use",
                    "id": "toolu_01A09q90qw90lq917835lq9",
                    "name": "get_weather",
                    "input": {"location": "San Francisco, CA", "unit": "celsius"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                    "content": "ConnectionError: the weather service is down"
                    if error
                    else "15 degrees",
                    "is_error": error,
                }
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": answer}]},
    ]
