"""The built-in server's process dying during a job: the job names what happened, starts
it again once, and stops at a second death; in the command line and in the window.

The process is a stand-in (``tests/local_server_helpers.py``): the project's own test server,
started as the llama.cpp server is and dying of SIGSEGV in the middle of a request.
``tests/test_judge_llama.py`` kills the real llama.cpp server during a job.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import desktop.adapters.local_server as local_server_module
from desktop.adapters.local_server import LocalServer, exit_text
from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.domain.profiles import local_profile
from desktop.domain.requests import asks_logprobs
from desktop.resources import resources_dir
from desktop.services.endpoints import endpoint_for
from desktop.services.importing import import_file
from desktop.services.judging import JobOptions, JudgeJob
from desktop.services.project_rubrics import find_rubric
from tests.judging_helpers import results
from tests.local_server_helpers import CRASHED, SERVER_SCRIPT, stand_in

Installer = Callable[[LocalServer], LocalServer]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def demo_project(tmp_path: Path) -> Path:
    """The demo pairs, which every built-in rubric can judge."""
    path = tmp_path / "demo.tiebreak"
    with open_project(path, create=True) as store:
        import_file(store, resources_dir() / "demo_pairs.jsonl")
    return path


def judge_locally(path: Path, rubric: str = "href-four", **options: object):
    """A job with the built-in profile, as the window and the command line start one."""
    profile = local_profile()
    with open_project(path) as store:
        found = find_rubric(store, rubric)
        endpoint = endpoint_for(profile, logprobs=asks_logprobs(profile, found))
        job = JudgeJob(
            store,
            found,
            profile,
            base_url=endpoint.base_url,
            api_key=None,
            options=JobOptions(backoff=0.05, **options),  # type: ignore[arg-type]
            server=endpoint.server,
        )
        return job.run(), results(store)


def test_exit_text_names_the_signal_or_the_code() -> None:
    assert exit_text(-11) == "crashed (signal 11, SIGSEGV)"
    assert exit_text(-9) == "crashed (signal 9, SIGKILL)"
    assert exit_text(3) == "exited (code 3)"


def test_a_crash_is_named_and_the_server_started_again_once(
    tmp_path: Path, install_local_server: Installer
) -> None:
    server = install_local_server(stand_in(2))  # the first process dies at the second pair
    summary, rows = judge_locally(demo_project(tmp_path), limit=4)
    assert tuple(map(str, summary.restarts)) == (CRASHED,)
    assert summary.stopped is None and server.starts == 2
    p = summary.progress
    assert (p.done, p.ok, p.errors) == (4, 4, 0)  # the pair asked during the crash, again
    assert [r["status"] for r in rows] == ["ok"] * 4


def test_a_second_crash_stops_the_job_with_what_happened(
    tmp_path: Path, install_local_server: Installer
) -> None:
    server = install_local_server(stand_in(2, 1))  # the new process dies at its first request
    summary, rows = judge_locally(demo_project(tmp_path), limit=4)
    assert tuple(map(str, summary.restarts)) == (CRASHED,)
    assert summary.stopped == CRASHED and server.starts == 2
    assert [r["status"] for r in rows] == ["ok"]  # nothing stored for the pair it died on
    assert summary.progress.errors == 0


def test_the_command_line_names_the_crash_and_exits_1(
    tmp_path: Path, install_local_server: Installer, capsys: pytest.CaptureFixture[str]
) -> None:
    install_local_server(stand_in(1, 1))
    path = demo_project(tmp_path)
    assert main(["judge", str(path), "--rubric", "href-four", "--limit", "3"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if line.startswith("tiebreak:")] == [
        f"tiebreak: {CRASHED}; started it again",
        f"tiebreak: error: judging stopped: {CRASHED}",
    ]


def test_the_command_line_goes_on_after_one_crash_and_exits_0(
    tmp_path: Path, install_local_server: Installer, capsys: pytest.CaptureFixture[str]
) -> None:
    install_local_server(stand_in(3))
    path = demo_project(tmp_path)
    assert main(["judge", str(path), "--rubric", "href-four", "--limit", "3"]) == 0
    out, err = capsys.readouterr()
    assert "3 ok, 0 parse failures, 0 errors" in out
    messages = [line for line in err.splitlines() if line.startswith("tiebreak:")]
    assert messages == [f"tiebreak: {CRASHED}; started it again"]  # besides the progress


def test_a_server_that_crashes_at_start_says_so(tmp_path: Path) -> None:
    def command(port: int, logprobs: bool) -> list[str]:
        code = "import sys; print('loading the model', flush=True); sys.exit(3)"
        return [sys.executable, "-c", code]

    server = LocalServer(command=command, startup_timeout=30)
    with pytest.raises(local_server_module.LocalServerError) as caught:
        server.ensure_started()
    assert str(caught.value) == (
        "the offline model server exited (code 3) at start; last log line: loading the model"
    )


def open_demo_window(qtbot, path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The window on the demo pairs with the built-in profile, its message boxes collected."""
    import desktop.ui.dialogs as dialogs
    from desktop.services.app_settings import AppSettings
    from desktop.services.session import ReviewSession
    from desktop.ui.main_window import MainWindow

    settings = AppSettings(reviewer="ada", profile="local")
    session = ReviewSession.open(path, settings)
    session.choose_rubric("href-four")
    win = MainWindow(session, settings)
    qtbot.addWidget(win)
    win.shown_errors = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: win.shown_errors.append(message))
    win.show()
    qtbot.waitExposed(win)
    return win


def judge_all_in(qtbot, win) -> None:  # type: ignore[no-untyped-def]
    win.judging.judge_all()
    qtbot.waitUntil(lambda: not win.judging.running, timeout=30_000)


@pytest.mark.usefixtures("qapp")
def test_the_window_names_a_second_crash_and_counts_no_error_as_judged(
    qtbot, tmp_path: Path, install_local_server: Installer, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_local_server(stand_in(2, 1))
    win = open_demo_window(qtbot, demo_project(tmp_path), monkeypatch)
    judge_all_in(qtbot, win)
    assert win.shown_errors == [f"judging stopped: {CRASHED}"]
    qtbot.waitUntil(lambda: "20 pairs · 1 judged" in win.counts.text(), timeout=5000)
    win.context.runner.shutdown()


@pytest.mark.usefixtures("qapp")
def test_the_window_goes_on_after_one_crash_and_says_so(
    qtbot, tmp_path: Path, install_local_server: Installer, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_local_server(stand_in(5))
    win = open_demo_window(qtbot, demo_project(tmp_path), monkeypatch)
    judge_all_in(qtbot, win)
    assert win.shown_errors == []
    message = win.statusBar().currentMessage()
    assert message.startswith("judged 20 ok, 0 parse failures, 0 errors")
    short = "the offline model server crashed (signal 11, SIGSEGV) and was started again"
    assert message.endswith(f"; {short}")  # the whole report would not fit
    qtbot.waitUntil(lambda: "20 pairs · 20 judged" in win.counts.text(), timeout=5000)
    win.context.runner.shutdown()


def test_logits_of_every_prompt_token_only_for_a_job_that_reads_logprobs(
    tmp_path: Path, install_local_server: Installer
) -> None:
    """A server without them reads prompts faster; one that must give logprobs is started
    again with them, and then kept for every job."""
    asked: list[bool] = []

    def command(port: int, logprobs: bool) -> list[str]:
        asked.append(logprobs)
        return [sys.executable, str(SERVER_SCRIPT), "--port", str(port), "--answer", "A"]

    server = install_local_server(LocalServer(command=command, startup_timeout=30))
    path = demo_project(tmp_path)
    judge_locally(path, "href-four", limit=1)  # a comma list: no logprobs
    judge_locally(path, "href-overall", limit=1)  # one token: its logprob is the confidence
    judge_locally(path, "href-four", limit=2)
    assert asked == [False, True] and server.starts == 2 and server.logprobs
    with open_project(path, readonly=True) as store:
        confidence = store.conn.execute(
            "SELECT confidence FROM judge_results WHERE rubric_name = 'href-overall'"
        ).fetchone()[0]
    assert confidence is not None
