"""A GGUF file's header, read by the app's own small reader, says what llama.cpp's ``gguf``
package says (on the bundled model and on files that package wrote); and a file that is not
a GGUF model, is cut short, or would not fit in memory is refused in one line naming it,
by `tiebreak profile add --gguf`, before anything is saved."""

from __future__ import annotations

from pathlib import Path

import gguf
import pytest
from gguf.constants import GGML_QUANT_SIZES, LlamaFileType

from desktop.adapters.gguf_file import GgufError, read_header
from desktop.adapters.gguf_server import check_gguf, machine_memory
from desktop.adapters.model_file import bundled_model
from desktop.adapters.profiles_file import load_profiles, profiles_path
from desktop.cli.main import main
from desktop.domain.gguf_types import FILE_TYPES, WEIGHT_TYPES
from tests.gguf_files import copy_of_bundled, sparse_to, write_gguf
from tests.local_server_helpers import require_llama


def test_the_type_tables_are_gguf_s() -> None:
    assert {t.value: (t.name, *GGML_QUANT_SIZES[t]) for t in GGML_QUANT_SIZES} == WEIGHT_TYPES
    published = {
        f.value: f.name.removeprefix("MOSTLY_").removeprefix("ALL_")
        for f in LlamaFileType
        if f.name != "GUESSED"
    }
    assert published == FILE_TYPES


def same_as_gguf(path: Path) -> None:
    """Every scalar, string and short array, every array's length, the tensors' count,
    weights and types, and where the data starts, as ``gguf.GGUFReader`` reads them."""
    ours, theirs = read_header(path), gguf.GGUFReader(path)
    fields = {k: f for k, f in theirs.fields.items() if not k.startswith("GGUF.")}
    arrays = {k: len(f.data) for k, f in fields.items() if f.types[0] == gguf.GGUFValueType.ARRAY}
    assert ours.array_lengths == arrays
    for key, field in fields.items():
        if key in arrays and arrays[key] > 64:
            assert key not in ours.metadata
            continue
        value = field.contents()
        assert ours.metadata[key] == (pytest.approx(value) if isinstance(value, float) else value)
    assert set(ours.metadata) == {k for k in fields if k not in arrays or arrays[k] <= 64}
    assert ours.tensor_count == len(theirs.tensors)
    assert ours.parameters == sum(int(t.n_elements) for t in theirs.tensors)
    counted: dict[str, int] = {}
    for tensor in theirs.tensors:
        counted[tensor.tensor_type.name] = counted.get(tensor.tensor_type.name, 0) + 1
    assert ours.tensor_types == counted
    assert ours.data_offset == theirs.data_offset
    last = max(theirs.tensors, key=lambda t: t.data_offset)
    assert ours.expected_size == last.data_offset + int(last.n_bytes)


def test_the_bundled_model_reads_as_gguf_reads_it() -> None:
    require_llama()
    same_as_gguf(bundled_model())
    header = read_header(bundled_model())
    assert (header.architecture, header.parameter_label, header.quantization) == (
        "llama",
        "135M",
        "Q4_1",
    )
    assert header.context_length == 8192 and header.chat_template
    assert header.parameters == 134_515_008


def test_files_gguf_wrote_read_as_gguf_reads_them(tmp_path: Path) -> None:
    plain = write_gguf(tmp_path / "plain.gguf", vocab=300)
    aligned = write_gguf(tmp_path / "aligned.gguf", alignment=64, file_type=None)
    for path in (plain, aligned):
        same_as_gguf(path)
    header = read_header(plain)
    assert header.metadata["test.i64"] == -(2**40) and header.metadata["test.flag"] is True
    assert header.metadata["general.languages"] == ["en", "fr"]
    assert header.quantization == "Q4_K_M"  # as general.file_type says
    assert read_header(aligned).quantization == "F32"  # the commonest tensor type


def profile_add(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """`tiebreak profile add` with this file: exit 1 and the one stderr line."""
    assert main(["profile", "add", "mine", "--gguf", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    assert "mine" not in load_profiles() and not profiles_path().exists()
    return err.strip()


def test_a_file_that_is_not_a_gguf_model_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    renamed = tmp_path / "notes.gguf"
    renamed.write_text("These are my notes, not a model.\n")
    assert profile_add(renamed, capsys) == (
        f"tiebreak: error: {renamed}: not a GGUF model file (it does not start with 'GGUF')"
    )
    empty = tmp_path / "empty.gguf"
    empty.write_bytes(b"")
    assert (
        profile_add(empty, capsys) == f"tiebreak: error: {empty}: not a GGUF model file (0 bytes)"
    )
    missing = tmp_path / "gone.gguf"
    assert profile_add(missing, capsys).startswith(f"tiebreak: error: {missing}: cannot be read")
    model = write_gguf(tmp_path / "fine.gguf")
    assert main(["profile", "add", "local", "--gguf", str(model)]) == 1
    assert capsys.readouterr().err == (
        "tiebreak: error: local is the built-in profile; choose another name\n"
    )


def test_a_truncated_copy_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_llama()
    whole = bundled_model().read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole[: len(whole) // 2])
    assert profile_add(cut, capsys) == (
        f"tiebreak: error: {cut}: the file is cut short ({len(whole) // 2:,} of"
        f" {len(whole):,} bytes); download it again"
    )
    head = tmp_path / "head.gguf"
    head.write_bytes(whole[:100_000])  # inside the vocabulary
    assert profile_add(head, capsys) == (
        f"tiebreak: error: {head}: the file is cut short in its header (100,000 bytes);"
        " download it again"
    )


def test_a_model_too_large_for_this_machine_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = machine_memory()
    if memory is None:
        pytest.skip("this system does not say how much memory it has")
    weights = (memory // 18 * 32) // 256 * 256  # Q4_0: as many bytes as the memory itself
    huge = write_gguf(tmp_path / "huge.gguf", declared_elements=weights)
    with pytest.raises(GgufError, match="cut short"):
        read_header(huge)  # the weights are not there yet
    sparse_to(huge, huge.stat().st_size + weights // 32 * 18 + (1 << 20))  # and the small ones
    assert read_header(huge).parameters > weights
    line = profile_add(huge, capsys)
    assert line.startswith(f"tiebreak: error: {huge}: too large for this machine's memory")
    assert "installed)" in line and "2,048-token context" in line


def test_a_copy_of_the_bundled_model_is_a_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_llama()
    copy = copy_of_bundled(tmp_path / "models" / "my-judge.gguf", link=True)
    assert main(["profile", "add", "mine", "--gguf", str(copy), "--n-ctx", "4096"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"saved profile mine: {copy} (Smollm2 135M 8k Lc100K Mix1 Ep2: llama,")
    assert "context 4,096 tokens" in out and "the chat template from the file" in out
    profile = load_profiles()["mine"]
    assert profile.gguf == str(copy) and profile.n_ctx == 4096
    assert profile.model == "SmolLM2-135M-Instruct"  # the bundled weights: the built-in judge
    assert profile.served_here and profile.sends_grammar()
    assert profile.structured_mode() == "json_object"
    header, fit = check_gguf(copy)
    assert fit.n_ctx == 8192 and header.quantization == "Q4_1"
