"""The window and GGUF models: the demo judge says what it is where its verdicts are shown;
a judge whose test found it order-inconsistent says it is asked in both orders, and is; the
"ask" list offers the models found on the machine; the settings dialog takes a GGUF file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

import desktop.ui.dialogs as dialogs
from desktop.adapters.profiles_file import load_profiles, save_profile
from desktop.domain.profiles import ModelProfile
from desktop.services.app_settings import AppSettings
from desktop.services.session import ReviewSession
from desktop.ui.main_window import MainWindow
from tests.gguf_files import write_gguf
from tests.gui_helpers import completions, press
from tests.openai_server import OpenAIServer


def window_on(qtbot, project: Path, profile: str, monkeypatch) -> MainWindow:  # type: ignore[no-untyped-def]
    settings = AppSettings(reviewer="ada", profile=profile)
    session = ReviewSession.open(project, settings)
    session.choose_rubric("href-overall")
    win = MainWindow(session, settings)
    qtbot.addWidget(win)
    win.shown_errors = []  # type: ignore[attr-defined]
    monkeypatch.setattr(dialogs, "warn", lambda parent, m: win.shown_errors.append(m))  # type: ignore[attr-defined]
    win.resize(1400, 900)
    win.show()
    win.activateWindow()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.isActiveWindow)
    win.pairs.focus()
    return win


def test_the_demo_judge_says_it_is_a_demo(
    qtbot, project: Path, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    win = window_on(qtbot, project, "local", monkeypatch)
    note = win.display.verdicts.judge_note
    assert note.isVisible()
    assert note.text().startswith("SmolLM2-135M is a demo judge")
    assert "Settings → GGUF file" in note.text() and "tiebreak models" in note.text()
    win.grab().save(str(tmp_path / "demo-judge-note.png"))
    win.context.runner.shutdown()


def test_an_order_inconsistent_judge_is_asked_in_both_orders_and_says_so(
    qtbot, project: Path, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    with OpenAIServer(answer="A") as server:  # A, whichever response is shown first
        save_profile(
            ModelProfile(
                name="biased",
                model="biased-model",
                base_url=server.base_url,
                needs_key=False,
                swap=True,
                quality={"picks": 16, "answers": 32, "kept": 0, "pairs": 16},
            )
        )
        win = window_on(qtbot, project, "biased", monkeypatch)
        note = win.display.verdicts.judge_note
        assert note.text() == (
            "biased is asked in both orders: its test found its verdicts flip when A and B"
            " swap (kept on 0 of 16 demo pairs); a flip shows as ~ and in the swap column."
        )
        press(qtbot, win, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)  # this pair only
        qtbot.waitUntil(lambda: len(completions(server)) >= 2, timeout=20_000)
        qtbot.waitUntil(lambda: not win.judging.running, timeout=20_000)
        assert len(completions(server)) == 2  # one pair, both orders, without Ctrl+W
        panel = win.display.verdicts
        qtbot.waitUntil(lambda: panel.shown("overall").swap != "-", timeout=5_000)
        assert panel.shown("overall").swap == "flip"
        win.grab().save(str(tmp_path / "biased-judge-note.png"))
        win.context.runner.shutdown()


def test_the_ask_list_offers_a_model_found_on_this_machine(
    qtbot, project: Path, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    found = write_gguf(
        Path.home() / ".lmstudio" / "models" / "pub" / "Tiny-GGUF" / "Tiny-Q4_K_M.gguf"
    )
    win = window_on(qtbot, project, "local", monkeypatch)
    box = win.choices.profile_box
    offered = "+ Tiny-Q4_K_M.gguf · LM Studio file"
    qtbot.waitUntil(lambda: box.findText(offered) >= 0, timeout=10_000)
    box.setCurrentIndex(box.findText(offered))
    profiles = load_profiles()
    assert profiles["tiny-q4_k_m"].gguf == str(found)
    assert win.session.profile.name == "tiny-q4_k_m"
    assert box.currentText() == "tiny-q4_k_m" and box.findText(offered) < 0
    win.context.runner.shutdown()


def test_the_settings_dialog_takes_a_gguf_file_and_refuses_a_text_file(
    qtbot, project: Path, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from desktop.ui.settings_dialog import SettingsDialog

    win = window_on(qtbot, project, "local", monkeypatch)
    dialog = SettingsDialog(win, win.session)
    qtbot.addWidget(dialog)
    dialog.profile.setCurrentText("(new profile)")
    renamed = tmp_path / "notes.gguf"
    renamed.write_text("not a model")
    monkeypatch.setattr(dialogs, "open_file", lambda *args: renamed)
    dialog.choose_gguf.click()
    assert dialog.model.text() == "notes" and not dialog.base_url.isEnabled()
    save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
    save.click()
    assert win.shown_errors == [f"{renamed}: not a GGUF model file (it does not start with 'GGUF')"]  # type: ignore[attr-defined]
    assert "notes" not in load_profiles()

    model = write_gguf(tmp_path / "models" / "Judge-7B.gguf")
    monkeypatch.setattr(dialogs, "open_file", lambda *args: model)
    dialog.name.clear()
    dialog.choose_gguf.click()
    assert dialog.name.text() == "judge-7b" and dialog.model.text() == "Judge-7B"
    dialog.grab().save(str(tmp_path / "settings-gguf.png"))
    save.click()
    saved = load_profiles()["judge-7b"]
    assert saved.gguf == str(model) and saved.base_url is None and not saved.needs_key
    assert win.session.profile.name == "judge-7b"
    win.context.runner.shutdown()


def test_closing_settings_ends_a_quality_check_still_judging(
    qtbot, project: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A real model on a CPU takes minutes over 32 demo answers: Cancel ends the check."""
    from desktop.ui.settings_dialog import SettingsDialog

    with OpenAIServer(answer="A", delay=0.3) as server:
        save_profile(
            ModelProfile(name="slow", model="m", base_url=server.base_url, needs_key=False)
        )
        win = window_on(qtbot, project, "slow", monkeypatch)
        dialog = SettingsDialog(win, win.session)
        qtbot.addWidget(dialog)
        dialog.test_button.click()
        qtbot.waitUntil(lambda: "of 32 answers" in dialog.test_result.text(), timeout=20_000)
        task = dialog._task
        dialog.reject()
        assert task is not None
        qtbot.waitUntil(task.done.is_set, timeout=10_000)
        asked = len(completions(server))
    assert asked < 20, asked  # 4 probes, the 8 in flight (concurrency 8), not all 32
    assert load_profiles()["slow"].quality == {}
    win.context.runner.shutdown()
