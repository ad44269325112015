"""GGUF files for tests and benchmarks, written by llama.cpp's own ``gguf`` package (a test
dependency): small real models in the format (a few tensors, a vocabulary), a header that
declares more weights than any machine holds (the file made sparse to its full length, so
it takes no disk), and copies of the bundled model."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import gguf
import numpy as np

from desktop.adapters.model_file import bundled_model

TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}<|assistant|>"


def write_gguf(
    path: Path,
    *,
    name: str = "Tiny Test Model",
    arch: str = "llama",
    vocab: int = 64,
    file_type: int | None = 15,  # Q4_K_M
    chat_template: str | None = TEMPLATE,
    declared_elements: int | None = None,
    alignment: int | None = None,
) -> Path:
    """A small GGUF model file. ``declared_elements``: one more Q4_0 tensor of that many
    weights, declared in the header, its data a hole (the file is sparse)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(path, arch)
    writer.add_name(name)
    writer.add_context_length(4096)
    writer.add_block_count(2)
    writer.add_embedding_length(64)
    writer.add_head_count(4)
    writer.add_head_count_kv(2)
    if file_type is not None:
        writer.add_file_type(file_type)
    if alignment is not None:
        writer.add_custom_alignment(alignment)
    writer.add_array("general.languages", ["en", "fr"])
    writer.add_token_list([f"tok{i}" for i in range(vocab)])
    writer.add_token_scores([0.5] * vocab)
    writer.add_uint8("test.u8", 7)
    writer.add_int16("test.i16", -3)
    writer.add_float64("test.f64", 2.5)
    writer.add_bool("test.flag", True)
    writer.add_int64("test.i64", -(2**40))
    if chat_template is not None:
        writer.add_chat_template(chat_template)
    writer.add_tensor("token_embd.weight", np.ones((vocab, 64), dtype=np.float32))
    writer.add_tensor("output_norm.weight", np.ones(64, dtype=np.float16))
    if declared_elements is not None:
        nbytes = declared_elements // 32 * 18
        writer.add_tensor_info(
            "huge.weight",
            [declared_elements],
            np.dtype(np.float32),
            nbytes,
            raw_dtype=gguf.GGMLQuantizationType.Q4_0,
        )
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_ti_data_to_file()
        writer.close()
        return path
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def sparse_to(path: Path, size: int) -> None:
    """Lengthen a file to ``size`` bytes without writing them (a hole on disk)."""
    with open(path, "r+b") as handle:
        handle.truncate(size)


def copy_of_bundled(target: Path, *, link: bool = False) -> Path:
    """The bundled model at another path: a copy, or a hard link where ``link`` (same bytes,
    no disk; falls back to a copy across file systems)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if link:
        try:
            os.link(bundled_model(), target)
            return target
        except OSError:
            pass
    shutil.copyfile(bundled_model(), target)
    return target
