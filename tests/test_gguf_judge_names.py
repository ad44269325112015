"""Judges named as people name them (issue 30, item 10): a GGUF file from the Hugging Face
cache is the judge ``org/repo/file`` (its blob is named by a 64-digit hash), an Ollama
model is ``name:tag``, whether the profile comes from ``tiebreak models --add`` or from
``profile add --gguf`` (the snapshot's link or the blob itself); and the bundled weights,
wherever the file is, are the built-in profile's judge."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop.adapters.profiles_file import load_profiles
from desktop.cli.main import main
from desktop.domain.profiles import local_profile
from tests.gguf_files import copy_of_bundled, write_gguf
from tests.local_server_helpers import require_llama
from tests.test_model_listing import ollama_pull

BLOB = "ab" * 32  # a hub blob is named by its file's sha256


def hub_file(hub: Path, repo: str, file: str, make: object = write_gguf) -> tuple[Path, Path]:
    """A file as ``hf_hub_download(repo, file)`` leaves it: (the snapshot's link, the blob)."""
    folder = hub / f"models--{repo.replace('/', '--')}"
    blob = folder / "blobs" / BLOB
    make(blob)  # type: ignore[operator]
    link = folder / "snapshots" / ("cd" * 20) / file
    link.parent.mkdir(parents=True)
    depth = len(Path(file).parts) + 1
    link.symlink_to(Path(*[".."] * depth) / "blobs" / BLOB)
    return link, blob


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "hf" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(folder))
    return folder


def judge_of(profile: str) -> str:
    return load_profiles()[profile].model


def test_a_hub_file_is_named_by_its_repository_and_file(
    hub: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link, blob = hub_file(hub, "org/Hub-GGUF", "hub-q8_0.gguf")
    assert main(["models", "--no-servers"]) == 0
    listed = capsys.readouterr().out.splitlines()[0].split()
    assert listed[:4] == ["1", "Hugging", "Face", "org/Hub-GGUF/hub-q8_0.gguf"]
    assert main(["models", "--add", "1"]) == 0
    assert main(["profile", "add", "by-link", "--gguf", str(link)]) == 0
    assert main(["profile", "add", "by-blob", "--gguf", str(blob)]) == 0
    judges = {judge_of(p) for p in ("hub-q8_0", "by-link", "by-blob")}
    assert judges == {"org/Hub-GGUF/hub-q8_0"}
    assert load_profiles()["by-link"].gguf == str(blob.resolve())  # the file served is the same
    capsys.readouterr()
    assert main(["profile", "list", "--json"]) == 0
    listed_judges = [v["model"] for v in json.loads(capsys.readouterr().out).values()]
    assert not any(BLOB in judge for judge in listed_judges)


def test_a_file_in_a_folder_of_a_repository_keeps_its_folder(hub: Path) -> None:
    link, _ = hub_file(hub, "org/Many-GGUF", "Q4_K_M/model-Q4_K_M.gguf")
    assert main(["profile", "add", "many", "--gguf", str(link)]) == 0
    assert judge_of("many") == "org/Many-GGUF/Q4_K_M/model-Q4_K_M"


def test_an_ollama_model_is_named_as_ollama_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "ollama"
    monkeypatch.setenv("OLLAMA_MODELS", str(store))
    blob = ollama_pull(
        store, "registry.ollama.ai", "library", "tiny", "latest", write_gguf(tmp_path / "o.gguf")
    )
    assert main(["models", "--add", "tiny:latest"]) == 0
    assert main(["profile", "add", "by-blob", "--gguf", str(blob)]) == 0
    assert judge_of("tiny-latest") == judge_of("by-blob") == "tiny:latest"


def test_a_file_elsewhere_is_named_by_its_file(tmp_path: Path) -> None:
    model = write_gguf(tmp_path / "models" / "Judge-7B.Q4_K_M.gguf")
    assert main(["profile", "add", "mine", "--gguf", str(model)]) == 0
    assert judge_of("mine") == "Judge-7B.Q4_K_M"


def test_the_bundled_weights_are_the_built_in_judge_wherever_they_are(
    hub: Path, tmp_path: Path
) -> None:
    require_llama()
    from desktop.adapters.model_file import bundled_model

    link, blob = hub_file(
        hub, "HuggingFaceTB/SmolLM2-135M-Instruct-GGUF", "smollm2.gguf", copy_of_bundled
    )
    assert not os.path.samefile(blob, bundled_model())  # a copy, byte for byte
    assert main(["profile", "add", "hub-smol", "--gguf", str(link)]) == 0
    assert main(["profile", "add", "bundled", "--gguf", str(bundled_model())]) == 0
    assert main(["models", "--add", "1", "--name", "listed"]) == 0
    builtin = local_profile().model
    assert judge_of("local") == builtin
    assert {judge_of(p) for p in ("hub-smol", "bundled", "listed")} == {builtin}


def test_the_window_names_a_hub_file_s_judge_by_its_repository(
    qtbot, project: Path, hub: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """The "ask" list offers the file as the hub names it, and so does Settings' model."""
    import desktop.ui.dialogs as dialogs
    from desktop.ui.settings_dialog import SettingsDialog
    from tests.test_gguf_window import window_on

    link, _ = hub_file(hub, "org/Hub-GGUF", "hub-q8_0.gguf")
    win = window_on(qtbot, project, "local", monkeypatch)
    box = win.choices.profile_box
    offered = "+ org/Hub-GGUF/hub-q8_0.gguf · Hugging Face file"
    qtbot.waitUntil(lambda: box.findText(offered) >= 0, timeout=10_000)
    box.setCurrentIndex(box.findText(offered))
    assert win.session.profile.name == "hub-q8_0"
    assert win.session.profile.model == "org/Hub-GGUF/hub-q8_0"

    dialog = SettingsDialog(win, win.session)
    qtbot.addWidget(dialog)
    dialog.profile.setCurrentText("(new profile)")
    monkeypatch.setattr(dialogs, "open_file", lambda *args: link)
    dialog.name.clear()
    dialog.choose_gguf.click()
    assert (dialog.name.text(), dialog.model.text()) == ("hub-q8_0", "org/Hub-GGUF/hub-q8_0")
    win.context.runner.shutdown()
