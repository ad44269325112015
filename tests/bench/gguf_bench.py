"""bench_local.py's two GGUF measurements (``--gguf``, ``--models``), kept apart so that
module stays one job.

``--gguf``: a GGUF profile judges at the built-in profile's pairs per minute for the same
file. The built-in server reads the bundled model's 16-bit copy; a GGUF profile is pointed at
that very copy, so the two differ only in how the app starts and asks them. Target: within 5%.

``--models``: ``tiebreak models`` over 1,000 GGUF files spread over the folders it scans
(LM Studio's layout, the Hugging Face hub's snapshots and blobs, Ollama's manifests and
blobs, $TIEBREAK_MODEL_PATH), all written by llama.cpp's ``gguf`` package with a 2,000-token
vocabulary; timed as a user runs it (a fresh process), the first time (every header read)
and again (headers remembered). Target: under 1 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TARGET_RATIO = 0.95
MODELS_TARGET_S = 1.0


def gguf_setups(setup_class: Any, copy_type: str) -> list[Any]:
    """The built-in profile and a GGUF profile for the same 16-bit file."""
    from desktop.adapters.gguf_server import gguf_server
    from desktop.adapters.model_file import cache_dir
    from desktop.domain.profiles import gguf_profile

    class GgufSetup(setup_class):  # type: ignore[misc, valid-type]
        def start(self, folder: Path) -> None:
            super().start(folder)
            copy = next(cache_dir().glob(f"*.{copy_type}.gguf"))
            self.profile = gguf_profile("bench-gguf", str(copy))
            self.server = gguf_server(copy, self.profile.model)

    built_in = setup_class("built_in", None, grammar=True, weights=copy_type)
    return [built_in, GgufSetup("gguf_profile", None, grammar=True, weights=copy_type)]


def gguf_targets(results: dict[str, Any]) -> dict[str, Any]:
    """Pairs per minute, GGUF over built-in, per rubric; and the servers' CPU seconds for
    the same answers, which other work on the machine changes much less than wall time
    (with the two computing the same thing, their verdicts and answer lengths are alike)."""
    ratios = {r: row.get("gguf_profile_speedup") for r, row in results.items()}
    worst = min((v for v in ratios.values() if v is not None), default=None)
    cpu = {
        name: sum(row[name]["server_cpu_s"] for row in results.values())
        for name in ("built_in", "gguf_profile")
    }
    return {
        "gguf_over_built_in_pairs_per_min": ratios,
        "built_in_over_gguf_server_cpu_s": round(cpu["built_in"] / cpu["gguf_profile"], 3)
        if cpu["gguf_profile"]
        else None,
        "target": f">= {TARGET_RATIO} on every rubric",
        "within_5_percent": worst is not None and worst >= TARGET_RATIO,
    }


def models_listing(count: int, folder: Path) -> dict[str, Any]:
    """Write ``count`` GGUF files into the scanned folders and time `tiebreak models`."""
    from tests.gguf_files import write_gguf
    from tests.test_model_listing import ollama_pull

    home = folder / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "TIEBREAK_CACHE_DIR": str(folder / "cache"),
        "OLLAMA_MODELS": str(folder / "ollama"),
        "LLAMA_CACHE": str(folder / "llama.cpp"),
        "TIEBREAK_MODEL_PATH": str(folder / "extra"),
        "TIEBREAK_SERVER_PORTS": "ollama=0,lmstudio=0,llama.cpp=0",
    }
    for name in ("HF_HOME", "HF_HUB_CACHE"):
        env.pop(name, None)
    template = write_gguf(folder / "template.gguf", vocab=2000)
    data = template.read_bytes()
    started = time.perf_counter()
    for i in range(count):
        kind = i % 4
        if kind == 0:
            path = home / ".lmstudio" / "models" / f"pub{i % 37}" / f"model{i}" / f"m{i}.gguf"
        elif kind == 1:
            repo = home / ".cache" / "huggingface" / "hub" / f"models--org--m{i}"
            blob = repo / "blobs" / f"{i:064x}"
            blob.parent.mkdir(parents=True, exist_ok=True)
            blob.write_bytes(data)
            path = repo / "snapshots" / ("0" * 40) / f"m{i}.gguf"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(Path("../../blobs") / f"{i:064x}")
            continue
        elif kind == 2:
            weights = folder / "weights.gguf"
            weights.write_bytes(data + i.to_bytes(8, "little"))  # each blob its own digest
            ollama_pull(
                folder / "ollama", "registry.ollama.ai", "library", f"m{i}", "latest", weights
            )
            continue
        else:
            path = folder / "extra" / f"m{i}.gguf"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    written = time.perf_counter() - started

    def run() -> tuple[float, int]:
        began = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "desktop", "models", "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return time.perf_counter() - began, len(json.loads(proc.stdout)["files"])

    startup = subprocess.run([sys.executable, "-c", "import desktop.cli.main"], env=env, check=True)
    del startup
    began = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "desktop", "--version"], env=env, check=True, capture_output=True
    )
    reference = time.perf_counter() - began
    first, listed = run()
    again = [run()[0] for _ in range(3)]
    return {
        "files": count,
        "listed": listed,
        "written_in_s": round(written, 2),
        "tiebreak_version_s": round(reference, 3),
        "first_listing_s": round(first, 3),
        "later_listing_s": [round(x, 3) for x in again],
        "target_s": MODELS_TARGET_S,
        "under_target": min(again) < MODELS_TARGET_S,
    }
