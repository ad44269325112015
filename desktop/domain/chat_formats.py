"""Chat markup: messages to one prompt for raw completions endpoints, and back.

A rubric is stored as messages because the markup is model-specific; a completions
endpoint needs the markup of the model behind it. Importing a text template that already
carries markup (Llama-3, ChatML, HREF's neutral slots) splits it into messages the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from desktop.domain.errors import RubricError, TiebreakError
from desktop.domain.rubric import Message


@dataclass(frozen=True)
class ChatFormat:
    """How one model family wraps messages: text before all, around each, and the cue
    that asks the model to answer."""

    name: str
    title: str
    begin: str
    header: str  # "{role}" is replaced by the message's role
    end: str
    answer_cue: str  # the assistant header left open for the model to continue
    separator: str = ""  # between messages (the plain format's blank line)

    def format(self, messages: Sequence[Mapping[str, str] | Message]) -> str:
        turns = [_role_content(m) for m in messages]
        parts = [self.begin]
        for i, (role, content) in enumerate(turns):
            if i:
                parts.append(self.separator)
            parts.append(self.header.replace("{role}", role))
            parts.append(content)
            if role == "assistant" and i == len(turns) - 1:
                return "".join(parts)  # a prefilled answer: the model continues it
            parts.append(self.end)
        parts.append(self.answer_cue)
        return "".join(parts)


CHAT_FORMATS: dict[str, ChatFormat] = {
    f.name: f
    for f in (
        ChatFormat(
            name="chatml",
            title="ChatML (<|im_start|>, Qwen, SmolLM, many others)",
            begin="",
            header="<|im_start|>{role}\n",
            end="<|im_end|>\n",
            answer_cue="<|im_start|>assistant\n",
        ),
        ChatFormat(
            name="llama3",
            title="Llama 3 (<|start_header_id|>)",
            begin="<|begin_of_text|>",
            header="<|start_header_id|>{role}<|end_header_id|>\n\n",
            end="<|eot_id|>",
            answer_cue="<|start_header_id|>assistant<|end_header_id|>\n\n",
        ),
        ChatFormat(
            name="plain",
            title="Plain text (messages joined by blank lines)",
            begin="",
            header="",
            end="",
            answer_cue="",
            separator="\n\n",
        ),
    )
}


def format_prompt(messages: Sequence[Mapping[str, str] | Message], fmt: str) -> str:
    """One completions prompt from rendered messages, in the named chat format."""
    try:
        chat_format = CHAT_FORMATS[fmt]
    except KeyError:
        raise TiebreakError(
            f"unknown chat format {fmt!r} (known: {', '.join(CHAT_FORMATS)})"
        ) from None
    return chat_format.format(messages)


def _role_content(message: Mapping[str, str] | Message) -> tuple[str, str]:
    if isinstance(message, Message):
        return message.role, message.content
    return message["role"], message["content"]


# ---- splitting markup back into messages -------------------------------------------------

_LLAMA3_HEADER = re.compile(r"<\|start_header_id\|>(\w+)<\|end_header_id\|>(?:\n\n|\n)?")
_LLAMA3_END = "<|eot_id|>"
_CHATML_START = re.compile(r"<\|im_start\|>(\w+)\n")
_CHATML_END = "<|im_end|>"
# HREF's neutral slots, filled per model family by its own code.
_SLOT_START = "{normal_message_start}"
_SLOT_IDENTIFIER = re.compile(r"\{(system|user|assistant|model)_identifier\}\n?")
_SLOT_END = re.compile(r"\{(?:system_|user_|model_|assistant_)?message_end\}\s*\Z")
_SLOT_ROLES = {"system": "system", "user": "user", "assistant": "assistant", "model": "assistant"}


def split_chat_markup(text: str) -> list[Message]:
    """Messages from a text template: Llama-3 markup, ChatML, HREF's neutral slots, or
    else the whole text as one user message. A trailing empty assistant header (the cue
    to answer) is dropped; message contents are kept byte for byte."""
    if "<|start_header_id|>" in text:
        return _split_llama3(text)
    if "<|im_start|>" in text:
        return _split_chatml(text)
    if _SLOT_START in text:
        return _split_slots(text)
    return [Message("user", text)]


def _split_llama3(text: str) -> list[Message]:
    body = text.removeprefix("<|begin_of_text|>")
    headers = list(_LLAMA3_HEADER.finditer(body))
    if not headers:
        raise RubricError(
            "Llama-3 markup: <|start_header_id|> without a role and <|end_header_id|>"
        )
    return _split_marked(body, headers, _LLAMA3_END, "Llama-3", open_last=True)


def _split_chatml(text: str) -> list[Message]:
    starts = list(_CHATML_START.finditer(text))
    if not starts:
        raise RubricError("ChatML markup: <|im_start|> is not followed by a role and newline")
    return _split_marked(text, starts, _CHATML_END, "ChatML", open_last=False)


def _split_marked(
    text: str, starts: list[re.Match[str]], end: str, markup: str, *, open_last: bool
) -> list[Message]:
    """Messages between each start (its group 1 the role) and ``end``; the last message
    may lack its ``end`` where ``open_last``, and an empty last assistant message with no
    end is the cue to answer."""
    _only_space(text[: starts[0].start()], markup, "before the first message")
    messages = []
    for i, start in enumerate(starts):
        last = i + 1 == len(starts)
        stop = len(text) if last else starts[i + 1].start()
        content, closed, rest = text[start.end() : stop].partition(end)
        if not closed and last and start[1] == "assistant" and not content:
            break  # the answer cue
        if not closed and not (last and open_last):
            raise RubricError(f"{markup} markup: {start[1]} message has no {end}")
        _only_space(rest, markup, f"after the {start[1]} message")
        messages.append(Message(start[1], content))
    return messages


def _split_slots(text: str) -> list[Message]:
    chunks = text.removeprefix("{beginning}").split(_SLOT_START)
    _only_space(chunks[0], "neutral-slot", "before the first {normal_message_start}")
    messages = []
    for chunk in chunks[1:]:
        identifier = _SLOT_IDENTIFIER.match(chunk)
        if identifier is None:
            raise RubricError(
                "neutral-slot markup: {normal_message_start} is not followed by"
                " {system_identifier}, {user_identifier} or {assistant_identifier}"
            )
        content = chunk[identifier.end() :]
        end = _SLOT_END.search(content)
        if end is not None:
            content = content[: end.start()]
        role = _SLOT_ROLES[identifier[1]]
        if role == "assistant" and not content and chunk is chunks[-1]:
            break  # the answer cue
        messages.append(Message(role, content))
    return messages


def _only_space(text: str, markup: str, where: str) -> None:
    if text.strip():
        raise RubricError(f"{markup} markup: unexpected text {where}: {text.strip()[:40]!r}")
