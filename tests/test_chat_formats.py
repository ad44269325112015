"""Chat formats: messages to one completions prompt, and text templates back to messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.domain.chat_formats import CHAT_FORMATS, format_prompt, split_chat_markup
from desktop.domain.errors import RubricError, TiebreakError
from desktop.domain.rubric import Message

MESSAGES = [
    {"role": "system", "content": "Be fair."},
    {"role": "user", "content": "Which is better?\n"},
]


def test_llama3() -> None:
    assert format_prompt(MESSAGES, "llama3") == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe fair.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nWhich is better?\n<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )


def test_chatml() -> None:
    assert format_prompt(MESSAGES, "chatml") == (
        "<|im_start|>system\nBe fair.<|im_end|>\n"
        "<|im_start|>user\nWhich is better?\n<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_plain() -> None:
    assert format_prompt(MESSAGES, "plain") == "Be fair.\n\nWhich is better?\n"


def test_message_objects_work_too() -> None:
    objects = [Message(m["role"], m["content"]) for m in MESSAGES]
    for name in CHAT_FORMATS:
        assert format_prompt(objects, name) == format_prompt(MESSAGES, name)


def test_a_prefilled_answer_is_left_open_for_the_model() -> None:
    prefilled = [*MESSAGES, {"role": "assistant", "content": '{"choice": "'}]
    assert format_prompt(prefilled, "chatml").endswith('<|im_start|>assistant\n{"choice": "')
    assert format_prompt(prefilled, "llama3").endswith(
        '<|start_header_id|>assistant<|end_header_id|>\n\n{"choice": "'
    )


def test_unknown_format_lists_the_known_ones() -> None:
    with pytest.raises(TiebreakError, match=r"unknown chat format 'vicuna'.*chatml, llama3, plain"):
        format_prompt(MESSAGES, "vicuna")


def test_registry_lists_formats_with_titles() -> None:
    assert {"llama3", "chatml", "plain"} <= set(CHAT_FORMATS)
    assert all(f.title and f.name == key for key, f in CHAT_FORMATS.items())


# ---- split_chat_markup ---------------------------------------------------------------------


def test_plain_text_is_one_user_message() -> None:
    text = "Compare {output_1} and {output_2}.\n"
    assert split_chat_markup(text) == [Message("user", text)]


@pytest.mark.parametrize("fmt", ["llama3", "chatml"])
def test_split_undoes_format(fmt: str) -> None:
    expected = [Message(m["role"], m["content"]) for m in MESSAGES]
    assert split_chat_markup(format_prompt(MESSAGES, fmt)) == expected


_markup_free = st.text(st.characters(blacklist_categories=("Cs",))).filter(
    lambda s: "<|" not in s and "{normal_message_start}" not in s
)


@given(system=_markup_free, user=_markup_free)
def test_split_undoes_format_for_any_text(system: str, user: str) -> None:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    for fmt in ("chatml", "llama3"):
        assert split_chat_markup(format_prompt(messages, fmt)) == [
            Message("system", system),
            Message("user", user),
        ]


def test_llama3_seed_style_single_newline_after_header() -> None:
    text = (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\nSys<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\nUser\n\ntext<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>"
    )
    assert split_chat_markup(text) == [Message("system", "Sys"), Message("user", "User\n\ntext")]


def test_neutral_slots() -> None:
    text = (
        "{beginning}{normal_message_start}{system_identifier}\n{system_message}"
        "{model_message_end}{normal_message_start}{user_identifier}\nJudge {instruction}."
        "{user_message_end}"
    )
    assert split_chat_markup(text) == [
        Message("system", "{system_message}"),
        Message("user", "Judge {instruction}."),
    ]


def test_seeds_split_into_system_and_user(seeds_dir: Path) -> None:
    for prefix in ("000", "001", "002"):
        text = next(seeds_dir.glob(f"{prefix}_*.txt")).read_text(encoding="utf-8")
        roles = [m.role for m in split_chat_markup(text)]
        assert roles == ["system", "user"], prefix
    chatml = next(seeds_dir.glob("002_*.txt")).read_text(encoding="utf-8")
    system, user = split_chat_markup(chatml)
    assert system.content.endswith("to instructions.\n")  # the seed's newline is kept
    assert user.content.startswith("Decide only on correctness")
    for prefix in ("003", "004"):
        text = next(seeds_dir.glob(f"{prefix}_*.txt")).read_text(encoding="utf-8")
        assert split_chat_markup(text) == [Message("user", text)]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("<|im_start|>user\nno end", "user message has no <|im_end|>"),
        ("junk<|im_start|>user\nx<|im_end|>", "unexpected text before the first message"),
        ("<|im_start|>user\nx<|im_end|>trailing", "unexpected text after the user message"),
        ("<|im_start|> user", "not followed by a role"),
        ("<|start_header_id|>", "without a role"),
        (
            "<|start_header_id|>user<|end_header_id|>\nx<|start_header_id|>assistant"
            "<|end_header_id|>\ny",
            "user message has no <|eot_id|>",
        ),
        ("{normal_message_start}hello", "is not followed by"),
    ],
)
def test_malformed_markup_is_one_line(text: str, error: str) -> None:
    with pytest.raises(RubricError, match=error) as info:
        split_chat_markup(text)
    assert "\n" not in str(info.value)
