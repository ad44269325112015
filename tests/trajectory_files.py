"""Files of agent runs as each format's documentation writes them, for the import and
export tests (the messages themselves: ``tests/trajectory_data.py``).

- OpenAI chat: ``messages_a`` / ``messages_b`` and ``tools`` beside them, as a request to
  the Chat Completions API carries them (platform.openai.com/docs/guides/function-calling).
- TRL's tool-calling preference records: ``prompt``, ``chosen``, ``rejected`` message
  lists, ``tools`` a list of JSON schemas (huggingface.co/docs/trl/dataset_formats, "Tool
  Calling" and "Preference").
- Anthropic Messages: content blocks, the system prompt a top-level ``system`` string and
  tools ``{"name", "description", "input_schema"}`` (docs.anthropic.com, tool use).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from tests.trajectory_data import OPENAI_TOOLS, TRL_TOOLS, anthropic_run, openai_run, trl_run

ANTHROPIC_TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "description": "Get the current weather in a given location",
        "input_schema": {
            "type": "object",
            "properties": {
                "location": {
                    "type": "string",
                    "description": "The city and state, e.g. San Francisco, CA",
                },
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    }
]
ANTHROPIC_SYSTEM = "You are a concise weather assistant."


def openai_rows() -> list[dict[str, Any]]:
    """Two pairs of runs of one task in OpenAI's chat form."""
    return [
        {
            "id": "weather-1",
            "model_a": "agent-v1",
            "model_b": "agent-v2",
            "messages_a": openai_run("Paris: 14°C, light rain.", calls=1),
            "messages_b": openai_run("It is raining.", calls=2, error=True),
            "tools": OPENAI_TOOLS,
        },
        {
            "id": "weather-2",
            "messages_a": openai_run("Rome: sunny.", city="Rome, Italy"),
            "messages_b": openai_run("Rome: 20°C and sunny.", city="Rome, Italy"),
            "tools": OPENAI_TOOLS,
        },
    ]


def trl_rows() -> list[dict[str, Any]]:
    """TRL preference records of two runs (explicit prompt, as TRL recommends)."""
    chosen, rejected = trl_run("3 * 4 = 12"), trl_run("It is 15.", a=3, b=5)
    return [
        {
            "prompt": chosen[:1],
            "chosen": chosen[1:],
            "rejected": rejected[1:],
            "tools": TRL_TOOLS,
        }
    ]


def anthropic_rows() -> list[dict[str, Any]]:
    """Two runs in Anthropic's form, its system prompt and tools beside them."""
    return [
        {
            "id": "claude-1",
            "system": ANTHROPIC_SYSTEM,
            "messages_a": anthropic_run("It is 15 degrees in San Francisco."),
            "messages_b": anthropic_run("I could not reach the weather service.", error=True),
            "tools": ANTHROPIC_TOOLS,
        }
    ]


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Rows as a CSV: lists and objects as JSON text, as a spreadsheet export holds them."""
    names = list(dict.fromkeys(k for row in rows for k in row))
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(names)
        for row in rows:
            writer.writerow(
                [
                    json.dumps(v, ensure_ascii=False) if isinstance(v, list | dict) else v
                    for v in (row.get(n, "") for n in names)
                ]
            )
    return path
