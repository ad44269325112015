"""The offline judge's server process: llama-cpp-python's OpenAI-compatible server, with the
model's weights kept out of llama.cpp's "extra" buffer types.

Run as ``python -m desktop.adapters.llama_launch [--sixteen-bit-copy-in FOLDER] ARGS``, where
ARGS are the arguments of ``python -m llama_cpp.server``; ``desktop.adapters.local_server``
starts it. With a folder, the server reads the 16-bit copy of ``--model`` kept there, made
first if need be (``desktop.adapters.model_file`` says why), and the bundled file where the
copy cannot be made.

Why: on a CPU with Intel AMX (``amx_int8`` and ``amx_tile`` in /proc/cpuinfo: Sapphire
Rapids and later Xeons), llama.cpp built by pip with the native flags repacks the weights
into ggml's AMX buffer, and the first completion segfaults in ``ggml_backend_amx_mul_mat``
(ggml-org/llama.cpp#20824, closed without a fix). ``llama_model_params.use_extra_bufts =
False`` keeps every weight in the plain CPU buffer, which avoids that path. The server has
no option for it, so this wrapper sets it on the defaults ``Llama`` starts from (no file in
site-packages is changed), then runs the server as it is.

Off on every CPU, not only where the CPU has AMX. Measured on an AVX-512 x86-64 without AMX:
with the extra buffer types on, not one of the bundled model's tensors goes into one
(llama.cpp's load log: "cannot be used with preferred buffer type CPU_REPACK, using CPU
instead"), and judging href-four was as fast with them off as on (``tests/bench/
bench_local.py --sweep --variant extra_buffer_types_on``: on, 0.995x over 10 pairs in both
orders, 1.007x the median pair).
ggml's repack kernels (x86-64 and arm64) have no layout for Q4_1, the type of all 210 weight
matrices of the bundled SmolLM2-135M, so AMX is the only place where they would have gone
(arm64 could repack the one Q8_0 tensor, the output layer: not measured). The 16-bit copy
the server reads now goes into none either (x86-64 load log: "tensor 'token_embd.weight'
(f16) (and 272 others) cannot be used with preferred buffer type CPU_REPACK"), but the
bundled file is still what a server reads where the copy cannot be made. Off everywhere
therefore costs nothing measured, needs no CPU detection (which cannot be read the same way
on every system, and can disagree with what ggml itself detects), and the tests run exactly
what a user on an AMX machine runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from desktop.adapters.model_file import sixteen_bit_copy

# Written to the server's log when the model is loaded with the setting, so the tests can see
# that the server they judge with really got it.
LOADED_LINE = "tiebreak: model loaded without extra buffer types (use_extra_bufts=false)"
UNSUPPORTED_LINE = "tiebreak: this llama-cpp-python has no use_extra_bufts; extra buffer types on"
COPY_LINE = "tiebreak: reading the 16-bit copy of the model: "
NO_COPY_LINE = "tiebreak: reading the bundled model, its 16-bit copy could not be made: "
BAD_COPY_LINE = "tiebreak: reading the bundled model, the 16-bit copy would not load: "
COPY_OPTION = "--sixteen-bit-copy-in"


def without_extra_buffer_types() -> bool:
    """Make every ``Llama`` in this process load its weights without extra buffer types;
    False when this llama-cpp-python has no such setting."""
    import llama_cpp.llama_cpp as llama_lib

    fields = {name for name, *_ in llama_lib.llama_model_params._fields_}
    if "use_extra_bufts" not in fields:
        return False
    defaults = llama_lib.llama_model_default_params

    def model_params() -> object:
        params = defaults()
        params.use_extra_bufts = False
        print(LOADED_LINE, file=sys.stderr, flush=True)
        return params

    llama_lib.llama_model_default_params = model_params
    return True


def copy_folder(argv: Sequence[str]) -> tuple[Path | None, list[str]]:
    """The folder given first as ``--sixteen-bit-copy-in FOLDER`` (None without one), and the
    arguments that are the server's own."""
    if argv[:1] == [COPY_OPTION] and len(argv) >= 2:
        return Path(argv[1]), list(argv[2:])
    return None, list(argv)


def with_sixteen_bit_copy(server_argv: list[str], folder: Path | None) -> list[str]:
    """The server's arguments with ``--model`` pointing at the 16-bit copy kept in
    ``folder``, made if there is none yet; as they are without a folder or a copy."""
    if folder is None or "--model" not in server_argv[:-1]:
        return server_argv
    at = server_argv.index("--model") + 1
    try:
        copy = sixteen_bit_copy(Path(server_argv[at]), folder)
    except OSError as exc:
        print(NO_COPY_LINE + str(exc), file=sys.stderr, flush=True)
        return server_argv
    print(COPY_LINE + str(copy), file=sys.stderr, flush=True)
    return [*server_argv[:at], str(copy), *server_argv[at + 1 :]]


def main(argv: Sequence[str]) -> None:
    if not without_extra_buffer_types():
        print(UNSUPPORTED_LINE, file=sys.stderr, flush=True)
    from llama_cpp.server.__main__ import main as serve

    folder, bundled = copy_folder(argv)
    chosen = with_sixteen_bit_copy(bundled, folder)
    sys.argv = ["llama_cpp.server", *chosen]
    try:
        serve()
    except ValueError as exc:  # llama-cpp-python's "Failed to load model from file: PATH"
        if chosen == bundled or "Failed to load model" not in str(exc):
            raise
        # A copy damaged since it was made (cut short, overwritten): made again next start.
        copy = Path(chosen[chosen.index("--model") + 1])
        print(f"{BAD_COPY_LINE}{copy} ({exc}); removed", file=sys.stderr, flush=True)
        copy.unlink(missing_ok=True)
        sys.argv = ["llama_cpp.server", *bundled]
        serve()


if __name__ == "__main__":
    main(sys.argv[1:])
