"""A GGUF model's context and threads are chosen from its header and the machine: the
judge's 8,192 tokens where the model and the memory allow, less where either is short, and
whatever a profile sets; a model that cannot fit at the least context does not fit."""

from __future__ import annotations

from desktop.domain.model_fit import GIB, fit_model

# Llama-3-8B's shape: 32 layers, 8 key-value heads of 128, 16-bit cache: 128 KiB a token.
LLAMA_8B_KV = 32 * 8 * (128 + 128) * 2


def test_the_judge_context_where_memory_allows() -> None:
    fit = fit_model(
        file_size=int(4.7 * GIB),
        kv_bytes_per_token=LLAMA_8B_KV,
        trained_context=131072,
        memory_bytes=24 * GIB,
        cpus=2,
    )
    assert (fit.n_ctx, fit.threads, fit.fits) == (8192, 1, True)
    assert fit.needed_bytes == int(4.7 * GIB) + 8192 * LLAMA_8B_KV  # 1 GiB of cache


def test_a_short_trained_context_and_short_memory_shorten_the_context() -> None:
    short = fit_model(
        file_size=GIB, kv_bytes_per_token=1024, trained_context=4096, memory_bytes=None, cpus=8
    )
    assert (short.n_ctx, short.threads) == (4096, 4)
    tight = fit_model(
        file_size=int(5.5 * GIB),
        kv_bytes_per_token=LLAMA_8B_KV,
        trained_context=131072,
        memory_bytes=7 * GIB,  # 85% of it: 5.95 GiB for weights and cache
        cpus=2,
    )
    assert tight.n_ctx == 2048 and tight.fits


def test_what_a_profile_sets_is_kept_and_too_large_is_said() -> None:
    fit = fit_model(
        file_size=40 * GIB,
        kv_bytes_per_token=LLAMA_8B_KV,
        trained_context=8192,
        memory_bytes=24 * GIB,
        cpus=2,
        n_ctx=1024,
        threads=2,
    )
    assert (fit.n_ctx, fit.threads, fit.fits) == (1024, 2, False)
