"""Shared fixtures: the real data folder (skipped where absent) and a per-test user dir."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import keyring
import pytest

from tests.keyring_backends import MemoryKeyring

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# The window's fixtures (project, server, window), for every test that asks for them by name.
pytest_plugins = ("tests.gui_helpers",)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SEEDS = SHARED / "seeds"
ALPACA = SHARED / "data" / "alpaca_farm_ppo_human_vs_gpt4_annotations.json"


@pytest.fixture
def seeds_dir() -> Path:
    if not SEEDS.is_dir():
        pytest.skip("../shared/seeds is not beside this checkout")
    return SEEDS


@pytest.fixture
def alpaca_file() -> Path:
    if not ALPACA.is_file():
        pytest.skip("../shared/data is not beside this checkout")
    return ALPACA


@pytest.fixture(autouse=True)
def _heap_thawed():
    """A window freezes the heap (desktop/services/gc_freeze.py), as a long-lived app should;
    between tests, what one test left behind must still be collected."""
    yield
    gc.unfreeze()
    gc.enable()


@pytest.fixture(autouse=True)
def _window_state_cleared():
    """Each test's window starts as a new user's: no docks, theme or geometry saved by an
    earlier test (Qt keeps one settings store per process, in memory as well as on disk)."""
    if "PySide6.QtCore" in sys.modules:
        from PySide6.QtCore import QSettings

        QSettings("tiebreak", "tiebreak").clear()
    yield


@pytest.fixture(autouse=True)
def memory_keyring() -> MemoryKeyring:
    """Every test gets a fresh in-memory keyring; the real keychain is never touched."""
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    return backend


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point config and data directories at a temporary folder, so no test touches $HOME."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("TIEBREAK_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg-cache"))
    monkeypatch.delenv("TIEBREAK_CACHE_DIR", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # Where models are looked for (tiebreak models, the window's "ask" list): the home
    # folder is a temporary one, the tools' own folders unset, and no server port is asked,
    # so no test reads the machine's model folders or talks to a server running on it.
    monkeypatch.setenv("HOME", str(home))
    for name in ("TIEBREAK_MODEL_PATH", "LLAMA_CACHE", "HF_HUB_CACHE", "HF_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OLLAMA_MODELS", str(home / "no-ollama"))
    monkeypatch.setenv("TIEBREAK_SERVER_PORTS", "ollama=0,lmstudio=0,llama.cpp=0")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.keyring_backends.MemoryKeyring")
    # A command a test starts names that backend by module; the checkout comes first on its
    # path, because ppi-python (a test extra) installs a top-level package named ``tests``
    # too, which would otherwise hide ours from the child (CI sets no PYTHONPATH).
    path = [str(REPO), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(dict.fromkeys(path)))


@pytest.fixture
def install_local_server(monkeypatch: pytest.MonkeyPatch):
    """Make a server (a stand-in from tests/local_server_helpers.py) the app's built-in one,
    as ``local_server()`` returns it; stopped after the test."""
    import desktop.adapters.local_server as module

    installed = []

    def use(server):
        installed.append(server)
        monkeypatch.setattr(module, "_server", server)
        return server

    yield use
    for server in installed:
        server.stop()
