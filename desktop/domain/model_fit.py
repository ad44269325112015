"""How a GGUF model is run on this machine: its context size and threads, chosen from the
model's header and the machine's memory and cores (a profile may set either), and whether
it fits in memory at all. Plain arithmetic; the header and the machine are read elsewhere."""

from __future__ import annotations

from dataclasses import dataclass

# The context a judge is given when the model allows it: the built-in judge's, and room for
# the longest built-in rubric with a long pair (about 5,000 tokens) and its answer.
JUDGE_CONTEXT = 8192
# The least context worth starting a server with: a rubric and a short pair.
MIN_CONTEXT = 2048
# Memory the weights and cache may take, as a share of the machine's: the rest is the
# system's, the window's and llama.cpp's own buffers.
MEMORY_SHARE = 0.85
GIB = 1 << 30


@dataclass(frozen=True)
class ModelFit:
    n_ctx: int
    threads: int
    needed_bytes: int  # the weights and the key-value cache at ``n_ctx``
    memory_bytes: int | None  # the machine's, where known

    @property
    def fits(self) -> bool:
        return self.memory_bytes is None or self.needed_bytes <= self.memory_bytes * MEMORY_SHARE


def fit_model(
    *,
    file_size: int,
    kv_bytes_per_token: int | None,
    trained_context: int | None,
    memory_bytes: int | None,
    cpus: int,
    n_ctx: int | None = None,
    threads: int | None = None,
) -> ModelFit:
    """The context and threads to run a model with. Context: the one asked for, else the
    judge's 8,192 tokens or the model's own if shorter, halved while the weights and the
    cache would not fit in memory (down to 2,048). Threads: the one asked for, else half the
    cores, as the built-in server (``local_server.server_options`` says why)."""
    per_token = kv_bytes_per_token or 0

    def needed(context: int) -> int:
        return file_size + context * per_token

    if n_ctx is None:
        n_ctx = min(JUDGE_CONTEXT, trained_context or JUDGE_CONTEXT)
        budget = None if memory_bytes is None else memory_bytes * MEMORY_SHARE
        while budget is not None and n_ctx > MIN_CONTEXT and needed(n_ctx) > budget:
            n_ctx //= 2
        n_ctx = max(n_ctx, min(MIN_CONTEXT, trained_context or MIN_CONTEXT))
    return ModelFit(
        n_ctx=n_ctx,
        threads=threads or max(1, cpus // 2),
        needed_bytes=needed(n_ctx),
        memory_bytes=memory_bytes,
    )


def size_text(count: int) -> str:
    """Bytes for a person: 98 MB, 4.7 GB."""
    if count >= GIB:
        return f"{count / GIB:.1f} GB"
    return f"{count / (1 << 20):.0f} MB"
