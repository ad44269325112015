"""What the window says of the judge on the pair shown: a line of its answers, what a
reviewer must know about it, and the prompt it is sent. Text made from the session's
choices, apart from the session, which holds them."""

from __future__ import annotations

from desktop.adapters.store.project import ProjectStore
from desktop.domain.judge_quality import QualityFigures
from desktop.domain.pairs import Pair
from desktop.domain.profiles import ModelProfile, local_profile
from desktop.services.pair_verdicts import PairVerdicts

DEMO_MODEL = local_profile().model  # the built-in judge, SmolLM2-135M
DEMO_NOTE = (
    "SmolLM2-135M is a demo judge: it answers mostly by position, so its verdicts are"
    " noise, not labels. Judge with a real model: Settings → GGUF file, or `tiebreak"
    " models` for the models already on this machine."
)


def judge_summary(views: PairVerdicts | None, judge_model: str, profile: ModelProfile) -> str:
    """One line: the judge shown, and its answer in each order (which juror, how long it
    took, what went wrong); not judged yet, what Ctrl+J would ask."""
    if views is None or not views.judge:
        return (
            f"judge: {judge_model} — not judged yet (Ctrl+J asks {profile.name}: {profile.model})"
        )
    parts = []
    several = len({d.judge for d in views.judge}) > 1  # a jury: each juror's answers
    for detail in views.judge:
        text = f"{detail.judge} {detail.order}" if several else detail.order
        text += f": {detail.status}"
        if detail.latency_ms:
            text += f", {detail.latency_ms / 1000:.1f} s"
        if detail.error:
            text += f" — {detail.error}"
        parts.append(text)
    return f"judge: {judge_model} — " + "; ".join(parts)


def judge_note(judge_model: str, profile: ModelProfile) -> str:
    """What a reviewer must know about the judge whose verdicts are shown: that the
    built-in model is a demo, and that a judge found order-inconsistent is asked in
    both orders. Empty when there is nothing to say."""
    notes = []
    if judge_model == DEMO_MODEL:
        notes.append(DEMO_NOTE)
    if profile.swap and judge_model == profile.model:
        figures = QualityFigures.from_dict(profile.quality)
        kept = f" (kept on {figures.kept} of {figures.pairs} demo pairs)" if figures else ""
        notes.append(
            f"{profile.name} is asked in both orders: its test found its verdicts flip"
            f" when A and B swap{kept}; a flip shows as ~ and in the swap column."
        )
    return "\n".join(notes)


def prompt_text(
    store: ProjectStore, rubric_name: str, pair: Pair | None, profile: ModelProfile
) -> str:
    """The prompt ``profile`` is sent on ``pair`` (empty for none), as its API takes it."""
    if pair is None:
        return ""
    from desktop.domain.chat_formats import format_prompt
    from desktop.services.project_rubrics import find_rubric
    from desktop.services.rendering import render  # bounded: a worker process renders it

    messages = render(find_rubric(store, rubric_name), pair)
    if profile.api_mode == "completions":
        return format_prompt(messages, profile.chat_format)
    return "\n\n".join(f"=== {m['role']} ===\n{m['content']}" for m in messages)
