"""Judging from the window: this pair or all, progress and Cancel in the status bar, both
orders on request; or all pairs with a jury (several profiles, or samples of one, kept as
one jury the judge picker then offers). The job runs off the GUI thread; only its progress
snapshots come back here. A run that would send more requests than Settings allows
(``ask_above``) is counted first, off the GUI thread, and asked about; nothing starts,
no server either, until the reviewer says yes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QProgressBar, QPushButton, QStatusBar

from desktop.services.changes import Change
from desktop.services.gc_freeze import load_for_good
from desktop.ui.choices import Choices
from desktop.ui.context import WindowContext
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.workers import Task, Work

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox

    from desktop.services.judging import JobOptions, JobProgress, JobSummary
    from desktop.services.judging.panel import PanelRequest
    from desktop.services.judging.run_size import RunSize
    from desktop.ui.jury_dialog import JuryChoice, JuryDialog

JUDGE_ENGINE = ("desktop.services.connection", "desktop.services.judging")  # openai and all


class JudgeActions(QObject):
    def __init__(
        self, context: WindowContext, choices: Choices, pairs: PairBrowser, status_bar: QStatusBar
    ) -> None:
        super().__init__(context.window)
        self.context = context
        self.choices = choices
        self.pairs = pairs  # the keys go back to the list when the jury dialog closes
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setFormat("judging %v/%m")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        status_bar.addPermanentWidget(self.progress)
        status_bar.addPermanentWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()
        self.job: Task | None = None
        self._state: JobProgress | None = None
        self._changed: set[int] = set()
        self._judges: tuple[str, ...] = ()  # whose answers the job writes (the changes say so)
        self._flush_timer = QTimer(self, singleShot=True, interval=100)
        self._flush_timer.timeout.connect(self._flush)
        self.dialog: JuryDialog | None = None
        self.sizing: Task | None = None  # counting what a run will send, before asking
        self.question: QMessageBox | None = None  # the question before a big run, while open

    def bind(self, shortcuts: Shortcuts) -> None:
        shortcuts.bind("judge_pair", self.judge_pair)
        shortcuts.bind("judge_all", self.judge_all)
        shortcuts.bind("cancel_job", self.cancel)
        shortcuts.bind("judge_jury", self.choose_jury)
        self.swap = shortcuts.bind_toggle("toggle_swap", self._swap_toggled)

    @property
    def running(self) -> bool:
        """A job runs, or is being counted before it starts."""
        return self.job is not None or self.sizing is not None

    def _busy(self) -> bool:
        if self.running or self.question is not None:
            self.context.say("a judge job is already running", 3000)
            return True
        return False

    def warm_up(self) -> None:
        """Load the judge engine (openai and its compiled parts) in the background soon
        after the window shows. Loading a compiled module holds Python's lock for tens of
        milliseconds; done here, that happens while the reviewer reads the first pair,
        not as a stall at the start of their first judge job. All that is loaded then, and
        the window itself, is frozen out of the collector's walks (services/gc_freeze.py)."""
        self.context.runner.start(lambda progress, cancel: load_for_good(*JUDGE_ENGINE))

    def judge_pair(self) -> None:
        current = self.context.session.current
        if current is not None and current.id is not None:
            self.judge([current.id])

    def judge_all(self) -> None:
        self.judge(None)

    def judge(self, pair_ids: list[int] | None) -> None:
        """Judge ``pair_ids`` (None: every pair not yet judged) with the profile chosen."""
        from desktop.services.judging import JobOptions
        from desktop.services.judging.panel import PanelRequest

        if self._busy():
            return
        session = self.context.session
        swap = self.swap.isChecked()
        profile = session.profile

        def start() -> None:
            self.choices.show_judge(profile.model)  # what is asked for shows as it arrives
            self._start(session.judge_work(pair_ids, swap=swap), [profile.model])

        request = PanelRequest((profile,))
        self._ask_first(request, JobOptions(swap=swap, pair_ids=pair_ids), start)

    def _ask_first(
        self, request: PanelRequest, options: JobOptions, start: Callable[[], None]
    ) -> None:
        """``start()`` the run at once where it cannot pass the threshold (a pair or two);
        else once it is counted and, above the threshold, once the reviewer says yes."""
        from desktop.domain.errors import TiebreakError

        session = self.context.session
        try:
            threshold = session.settings.run_threshold()
        except TiebreakError as exc:
            self.context.error(str(exc))
            return
        pairs = len(options.pair_ids) if options.pair_ids is not None else session.pair_total()
        if pairs * 2 * request.samples * len(request.profiles) <= threshold:  # two orders at most
            start()
            return
        self.context.say("counting the requests this run will send…", 0)
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        self.sizing = self.context.runner.start(
            session.size_work(request, options),
            on_done=lambda size: self._sized(size, threshold, start),
            on_error=self._size_failed,
        )

    def _counted(self) -> bool:
        """The count has ended: whether it was cancelled (then nothing starts)."""
        task, self.sizing = self.sizing, None
        self.progress.hide()
        self.cancel_button.hide()
        return task is not None and task.cancel.is_set()

    def _sized(self, size: RunSize, threshold: int, start: Callable[[], None]) -> None:
        from desktop.ui.run_question import ask_before_run

        if self._counted():
            self.context.say("cancelled; nothing was sent", 8000)
            return
        self.context.say("")
        if not size.needs_asking(threshold):
            start()
            return

        def answered(yes: bool) -> None:
            self.question = None
            self.pairs.keys_back()
            if yes:
                start()
            else:
                self.context.say(f"nothing was sent ({size.requests:,} requests asked about)")

        self.question = ask_before_run(self.context.window, size, threshold, answered)

    def _size_failed(self, message: str) -> None:
        if self._counted():
            self.context.say("cancelled; nothing was sent", 8000)
            return
        self.context.say("")
        self.context.error(message)

    def choose_jury(self) -> None:
        """Ctrl+Alt+J: whom to ask as a jury (the dialog; OK judges every pair)."""
        from desktop.ui.jury_dialog import JuryDialog

        if self._busy():
            return
        session = self.context.session
        self.dialog = JuryDialog(
            self.context.window, session.profile_choices(), session.profile.name
        )
        self.dialog.accepted.connect(lambda: self._jury_chosen(self.dialog))
        self.dialog.finished.connect(lambda _result: self.pairs.keys_back())
        self.dialog.open()

    def _jury_chosen(self, dialog: JuryDialog | None) -> None:
        if dialog is not None:
            self.judge_jury(dialog.choice())

    def judge_jury(self, choice: JuryChoice) -> None:
        """Judge every pair not yet judged with each profile of ``choice`` (and its samples);
        the jury they make is shown, its verdicts arriving with its jurors' answers."""
        from desktop.domain.errors import TiebreakError
        from desktop.services.judging import JobOptions
        from desktop.services.judging.panel import PanelRequest, panel_work, sample_jury
        from desktop.services.profiles import get_profile

        if not choice.profiles:
            self.context.say("check a profile to ask", 4000)
            return
        try:
            profiles = tuple(get_profile(name) for name in choice.profiles)
        except TiebreakError as exc:
            self.context.error(str(exc))
            return
        request = PanelRequest(
            profiles, choice.samples, choice.temperature, choice.jury, choice.combine
        )
        session = self.context.session
        lost = session.file_lost()
        if lost is not None:
            self.context.error(lost)
            return
        options = JobOptions(swap=self.swap.isChecked())
        shown = choice.jury or (
            sample_jury(profiles[0].model, choice.samples)
            if choice.samples > 1
            else profiles[0].model
        )
        jurors = [profile.model for profile in profiles]
        work = panel_work(session.path, session.rubric_name, request, options)

        def start() -> None:
            self.choices.show_judge(shown)
            self._start(work, [*jurors, shown])

        self._ask_first(request, options, start)

    def _start(self, work: Work[JobProgress, JobSummary], judges: Iterable[str]) -> None:
        self._state = None
        self._changed = set()
        self._judges = tuple(judges)
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        self.job = self.context.runner.start(
            work, on_done=self._done, on_error=self._failed, on_progress=self._progressed
        )

    def cancel(self) -> None:
        for task in (self.job, self.sizing):
            if task is not None:
                task.cancel.set()

    def _swap_toggled(self, swap: bool) -> None:
        """Ctrl+W is a switch for the jobs to come, not a job: said so."""
        profile = self.context.session.profile
        if swap:
            line = (
                "both orders: on — the next Ctrl+J and Ctrl+Shift+J ask the judge with A and B"
                " swapped too (position-bias check)"
            )
        else:
            line = "both orders: off — the next Ctrl+J and Ctrl+Shift+J ask in one order"
            if profile.swap:
                line += f" (but {profile.name} is asked in both: its test found flips)"
        self.context.say(line, 6000)

    def _progressed(self, state: JobProgress) -> None:
        """Results arrive hundreds a second: note them, and repaint at most ten times a
        second, so the window stays responsive while a big job runs."""
        self._state = state
        if state.last_pair is not None:
            self._changed.add(state.last_pair)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _flush(self, *, ended: bool = False) -> None:
        """The answers that came since the last flush, published as one change (the last
        one once the job has ended)."""
        state, changed = self._state, self._changed
        self._changed = set()
        if state is not None:
            self.progress.setRange(0, max(state.total, 1))
            self.progress.setValue(state.done)
        if state is not None or ended:
            self.context.publish(
                Change.verdicts_of(changed, judges=self._judges, more_coming=not ended)
            )

    def _ended(self) -> None:
        self.job = None
        self._flush_timer.stop()
        self._flush(ended=True)
        self.progress.hide()
        self.cancel_button.hide()
        self.choices.refresh_judges()

    def _done(self, summary: JobSummary) -> None:
        self._ended()
        p = summary.progress
        text = (
            f"judged {p.ok} ok, {p.parse_failures} parse failures, {p.errors} errors"
            f" in {summary.elapsed_s:.1f} s"
        )
        for report in summary.restarts:  # the whole report would not fit the status bar
            text += f"; {report.short} and was started again"
        if summary.stopped:
            self.context.error(f"judging stopped: {summary.stopped}")
        elif summary.cancelled:
            text = "cancelled; " + text
        self.context.say(text, 8000)

    def _failed(self, message: str) -> None:
        self._ended()
        self.context.error(message)
