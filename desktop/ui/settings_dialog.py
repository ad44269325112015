"""Settings: the reviewer's name, font size, and model profiles with Test connection and
a key field that saves to the OS keyring (never to a file). A profile is a server (base URL
and model) or a GGUF file the app serves itself ("Choose file…"). A password typed in a base
URL goes to the keyring too; the field then shows the URL without it."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from desktop.domain.base_urls import split_password
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile, gguf_profile
from desktop.services.app_settings import ASK_ABOVE, save_settings
from desktop.services.profiles import (
    key_source,
    load_profiles,
    save_profile,
    set_key,
    set_session_key,
)
from desktop.services.session import ReviewSession
from desktop.ui import dialogs
from desktop.ui.dialogs import ask, lay_out
from desktop.ui.plain_text import PlainLabel
from desktop.ui.workers import Task


class SettingsDialog(QDialog):
    def __init__(self, parent: QWidget, session: ReviewSession) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Settings")
        self.reviewer = QLineEdit(session.settings.reviewer)
        self.reviewer.setPlaceholderText(session.reviewer())
        self.font_size = QSpinBox()
        self.font_size.setRange(0, 32)
        self.font_size.setSpecialValueText("system")
        self.font_size.setValue(session.settings.font_size)
        self.ask_above = QSpinBox()  # a count a project of 100,000 pairs asked twice exceeds
        self.ask_above.setRange(0, 10_000_000)
        self.ask_above.setGroupSeparatorShown(True)
        self.ask_above.setSpecialValueText("before every run")
        self.ask_above.setSuffix(" requests")
        self.ask_above.setToolTip(
            "A judge run (Ctrl+Shift+J, a jury, tiebreak judge) that would send more requests"
            " than this asks first, saying how many and what they cost where the profile has"
            " prices; 0 asks before every run"
        )
        try:
            self.ask_above.setValue(session.settings.run_threshold())
        except TiebreakError:  # a hand-edited file: the default, saved over it on Save
            self.ask_above.setValue(ASK_ABOVE)
        self.lc_files = QLineEdit(session.settings.lc_files)
        self.lc_files.setPlaceholderText("none: the minimal LC variant, no download")
        self.lc_files.setToolTip(
            "The folder holding AlpacaEval's df_gamed.csv: the Generators dock (Shift+M) then"
            " gives the leaderboard's length-controlled win rate (length_controlled_v1)"
        )
        general = QFormLayout()
        general.addRow("Reviewer name", self.reviewer)
        general.addRow("Font size", self.font_size)
        general.addRow("Ask before judging above", self.ask_above)
        general.addRow("AlpacaEval df_gamed.csv folder", self.lc_files)

        self.profiles = load_profiles()
        self.profile = QComboBox()
        self.profile.addItems([*self.profiles, "(new profile)"])
        self.profile.currentTextChanged.connect(self._show_profile)
        self.name = QLineEdit()
        self.base_url = QLineEdit()
        self.gguf = QLineEdit()
        self.gguf.setPlaceholderText("a GGUF model file, served by the app (no server needed)")
        self.gguf.textChanged.connect(self._gguf_changed)
        self.choose_gguf = QPushButton("Choose file…")
        self.choose_gguf.clicked.connect(self._choose_gguf)
        gguf_row = QHBoxLayout()
        gguf_row.addWidget(self.gguf, 1)
        gguf_row.addWidget(self.choose_gguf)
        self.model = QLineEdit()
        self.api_mode = QComboBox()
        self.api_mode.addItems(["chat", "completions"])
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 512)
        self.logprobs = QCheckBox("ask for logprobs (confidence of one-token answers)")
        self.price_in, self.price_out = QLineEdit(), QLineEdit()
        for field, tokens in ((self.price_in, "prompt"), (self.price_out, "answer")):
            field.setPlaceholderText(f"USD per million {tokens} tokens (none: no estimate)")
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("paste a key to save it in the keyring")
        self.key_state = PlainLabel()
        self.test_button = QPushButton("Test connection")
        self.test_button.clicked.connect(self._test)
        self.test_result = PlainLabel(lines=True)  # a line per finding
        self.test_result.setWordWrap(True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._task: Task | None = None
        form = QFormLayout()
        form.addRow("Profile", self.profile)
        form.addRow("Name", self.name)
        form.addRow("Base URL", self.base_url)
        form.addRow("GGUF file", gguf_row)
        form.addRow("Model", self.model)
        form.addRow("API mode", self.api_mode)
        form.addRow("Concurrency", self.concurrency)
        form.addRow("", self.logprobs)
        form.addRow("Price in", self.price_in)
        form.addRow("Price out", self.price_out)
        form.addRow("API key", self.key)
        form.addRow("", self.key_state)
        form.addRow("", self.test_button)
        form.addRow("", self.test_result)
        box = QGroupBox("Model profiles")
        box.setLayout(form)
        lay_out(
            self,
            [general, box],
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel,
            accept=self._save,
        )
        self.profile.setCurrentText(session.profile.name)
        self._show_profile(self.profile.currentText())

    def _show_profile(self, name: str) -> None:
        profile = self.profiles.get(name)
        local = bool(profile and profile.local)
        self.name.setText(profile.name if profile else "")
        self.base_url.setText(
            split_password(profile.base_url or "")[0] if profile else "https://api.openai.com/v1"
        )
        self.model.setText(profile.model if profile else "")
        self.api_mode.setCurrentText(profile.api_mode if profile else "chat")
        self.concurrency.setValue(profile.concurrency if profile else 8)
        self.logprobs.setChecked(profile.logprobs if profile else True)
        self.gguf.setText((profile.gguf or "") if profile else "")
        for field, price in (
            (self.price_in, profile.price_in if profile else None),
            (self.price_out, profile.price_out if profile else None),
        ):
            field.setText("" if price is None else f"{price:g}")
        for widget in (self.name, self.model, self.gguf, self.choose_gguf):
            widget.setEnabled(not local)
        self._gguf_changed()
        if local:
            for widget in (self.base_url, self.key, self.price_in, self.price_out):
                widget.setEnabled(False)
        self.key_state.setText(
            "built-in llama.cpp server with a demo model (SmolLM2-135M), no key needed"
            if local
            else "llama.cpp server for this file, started by the app; no key needed"
            if self.gguf.text().strip()
            else f"key: {key_source(profile) if profile else 'none'}"
        )

    def _gguf_changed(self) -> None:
        """A GGUF file needs no server address and no key."""
        served = bool(self.gguf.text().strip())
        for widget in (self.base_url, self.key, self.price_in, self.price_out):
            widget.setEnabled(not served)  # and costs nothing

    def _choose_gguf(self) -> None:
        path = dialogs.open_file(
            self, "Choose a GGUF model file", "GGUF models (*.gguf);;All files (*)"
        )
        if path is None:
            return
        self.gguf.setText(str(path))
        if not self.model.text().strip() or self.profile.currentText() == "(new profile)":
            from desktop.services.model_listing import gguf_judge_name

            self.model.setText(gguf_judge_name(path))
        if not self.name.text().strip():
            self.name.setText(path.stem.lower())

    def _profile_from_form(self) -> ModelProfile:
        name = self.name.text().strip()
        if not name or not self.model.text().strip():
            raise TiebreakError("a profile needs a name and a model")
        gguf = self.gguf.text().strip()
        if gguf:
            from desktop.services.model_listing import check_gguf_file

            check_gguf_file(Path(gguf))  # one line naming the file, where it cannot run here
            base = self.profiles.get(name) or gguf_profile(name, gguf)
            return base.with_changes(
                gguf=str(Path(gguf).resolve()),
                model=self.model.text().strip(),
                base_url=None,
                needs_key=False,
                logprobs=self.logprobs.isChecked(),
            )
        base = self.profiles.get(name) or ModelProfile(name=name, model=self.model.text().strip())
        url = self.base_url.text().strip() or None
        if url and base.base_url and split_password(base.base_url)[0] == url:
            url = base.base_url  # as shown, without its password: the profile keeps it
        return base.with_changes(
            gguf=None,
            model=self.model.text().strip(),
            base_url=url,
            api_mode=self.api_mode.currentText(),
            concurrency=self.concurrency.value(),
            logprobs=self.logprobs.isChecked(),
            price_in=_price(self.price_in.text(), "Price in"),
            price_out=_price(self.price_out.text(), "Price out"),
        )

    def _store_key(self, profile: ModelProfile) -> None:
        key = self.key.text().strip()
        if not key or profile.served_here:
            return
        try:
            set_key(profile.name, key)
        except TiebreakError as exc:
            if ask(self, "No keyring", f"{exc}\n\nKeep the key for this session only?"):
                set_session_key(profile.name, key)
        self.key.clear()

    def _test(self) -> None:
        """Off the GUI thread: a server that hangs must not freeze the window."""
        from desktop.services.connection import test_and_remember  # loads openai

        try:
            profile = self._profile_from_form()
            self._store_key(profile)
        except TiebreakError as exc:
            self.test_result.setText(str(exc))
            return
        self.test_button.setEnabled(False)
        self.test_result.setText("testing…")

        def work(progress: Callable[[object], None], cancel: threading.Event) -> str:
            report = test_and_remember(
                profile, progress=lambda *state: progress(state), cancel=cancel
            )
            return report.summary(profile.name)

        self._task = Task(work)
        self._task.signals.progress.connect(
            lambda state: self.test_result.setText(
                f"testing… {state[0]} of {state[1]} answers on the demo pairs"
            )
        )
        self._task.signals.finished.connect(self._tested)
        self._task.signals.failed.connect(self._tested)
        QThreadPool.globalInstance().start(self._task)

    def done(self, result: int) -> None:
        """Closing the dialog (Save, Cancel, Escape) ends a test still judging: a real model
        on a CPU can take minutes over the demo pairs."""
        if self._task is not None:
            self._task.cancel.set()
        super().done(result)

    def _tested(self, text: str) -> None:
        self.test_button.setEnabled(True)
        label = self.test_result
        label.setText(text.replace("; ", "\n"))  # a line per finding
        # A dialog does not grow for a wrapped label by itself: every line must show.
        label.setMinimumHeight(label.heightForWidth(label.width()))
        self.adjustSize()
        self.profiles = load_profiles()  # with what the test found out
        saved = self.profiles.get(self.name.text().strip())
        if saved and saved.base_url and split_password(self.base_url.text())[1] is not None:
            self.base_url.setText(saved.base_url)  # its password is in the keyring now

    def _save(self) -> None:
        try:
            lc_files = _gamed_folder(self.lc_files.text())
            profile = self._profile_from_form()
            self._store_key(profile)
            save_profile(profile)
            self.session.choose_profile(profile.name)
        except TiebreakError as exc:
            dialogs.warn(self, str(exc))
            return
        settings = self.session.settings
        settings.reviewer = self.reviewer.text().strip()
        settings.font_size = self.font_size.value()
        settings.ask_above = self.ask_above.value()
        settings.lc_files = lc_files
        save_settings(settings)
        self.accept()


def _gamed_folder(text: str) -> str:
    """The df_gamed.csv folder field: empty for none, else a folder that holds the file."""
    text = text.strip()
    if text and not (Path(text).expanduser() / "df_gamed.csv").is_file():
        raise TiebreakError(f"AlpacaEval df_gamed.csv folder: no df_gamed.csv in {text}")
    return str(Path(text).expanduser()) if text else ""


def _price(text: str, name: str) -> float | None:
    """A price field: empty for none, else dollars per million tokens, 0 or more."""
    text = text.strip().removeprefix("$").replace(",", "")
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise TiebreakError(f"{name}: not a number of dollars: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise TiebreakError(f"{name}: must be 0 or more dollars, not {text!r}")
    return value
