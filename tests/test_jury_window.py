"""A jury and a sample in the window: the judge picker offers a jury kept in the project and
shows its verdicts; Ctrl+Alt+J asks several profiles in one job and shows the jury they
make; Ctrl+Shift+S draws a sample, and Q then walks it in the order drawn. Real project
files, the project's own test server (two servers that answer differently), real keys."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.adapters.profiles_file import save_profile
from desktop.adapters.store import open_project
from desktop.adapters.store.samples import latest_sample, sample_frame
from desktop.cli.main import main
from desktop.domain.profiles import ModelProfile
from desktop.services.importing import import_file
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer
from tests.test_judge_picker import judge_texts, open_window, pick_judge, press

pytestmark = pytest.mark.usefixtures("qapp")
N = 6
SHOTS = Path("/tmp/shots/jury-report")


def _odd_b(data: dict) -> str:
    """Beta's judge: B on odd questions, A on even ones."""
    return "B" if int(re.search(r"question (\d+)", json.dumps(data)).group(1)) % 2 else "A"


@pytest.fixture
def two_servers(tmp_path: Path):
    """A project of six pairs, and two profiles: alpha answers A, beta B on odd pairs."""
    project = new_project(tmp_path)
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"question {i}",
            "response_a": f"a{i}",
            "response_b": f"b{i}",
            "reference": f"r{i}",
        }
        for i in range(1, N + 1)
    ]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    with OpenAIServer(answer="A") as alpha, OpenAIServer(responder=_odd_b) as beta:
        for name, server in (("alpha", alpha), ("beta", beta)):
            save_profile(
                ModelProfile(
                    name=name, model=f"judge-{name}", base_url=server.base_url, needs_key=False
                )
            )
        yield project


def shot(widget, name: str) -> None:
    """With TIEBREAK_SHOTS set, the widget as drawn, for a person to look at."""
    if not os.environ.get("TIEBREAK_SHOTS"):
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / name))


def verdicts_shown(qtbot, win) -> list[str]:
    """The judge's verdict on overall for each pair, J from the first."""
    seen = []
    for _ in range(N):
        seen.append(win.display.verdicts.shown("overall").judge)
        press(qtbot, Qt.Key.Key_J)
    return seen


def test_the_picker_offers_a_kept_jury_and_shows_its_verdicts(qtbot, two_servers) -> None:
    project = two_servers
    args = ["judge", str(project), "--rubric", "href-overall"]
    assert main([*args, "--profile", "alpha", "--profile", "beta"]) == 0
    assert main(["jury", "add", str(project), "panel", "--judge", "judge-alpha",
                 "--judge", "judge-beta"]) == 0  # fmt: skip
    win = open_window(qtbot, project, profile="alpha")
    # The judges, most recent answers first (the job asked both at once), then the jury.
    expected = ["judge-alpha · 6", "judge-beta · 6", "panel (jury of 2) · 6"]
    qtbot.waitUntil(lambda: sorted(judge_texts(win)) == expected, timeout=5000)
    assert judge_texts(win)[-1] == "panel (jury of 2) · 6"
    pick_judge(qtbot, win, 2)
    assert win.session.shown_judge == "panel"
    assert win.choices.judge_box.currentText() == "panel (jury of 2) · 6"
    # alpha says A everywhere, beta B on odd pairs: the jury splits there (a tie).
    assert verdicts_shown(qtbot, win) == ["tie", "A", "tie", "A", "tie", "A"]
    shot(win, "window-showing-a-jury.png")
    qtbot.waitUntil(lambda: "6 pairs · 6 judged" in win.counts.text(), timeout=5000)
    win.context.runner.shutdown()


def test_ctrl_alt_j_asks_several_profiles_and_shows_their_jury(qtbot, two_servers) -> None:
    project = two_servers
    win = open_window(qtbot, project, profile="alpha")
    win.choices.rubric_box.setCurrentText("href-overall")  # no verdicts yet: just-eval shown
    assert win.session.rubric_name == "href-overall"
    win.pairs.focus()
    press(
        qtbot, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
    )
    dialog = win.judging.dialog
    qtbot.waitUntil(lambda: dialog is not None and dialog.isVisible())
    dialog.check("beta")  # alpha, the profile Ctrl+J asks, is checked already
    dialog.name.setText("both")
    shot(dialog, "jury-dialog.png")
    dialog.accept()
    qtbot.waitUntil(lambda: not win.judging.running, timeout=20_000)
    assert win.session.shown_judge == "both"
    qtbot.waitUntil(lambda: "both (jury of 2) · 6" in judge_texts(win), timeout=5000)
    with open_project(project, readonly=True) as store:
        judges = dict(
            store.conn.execute(
                "SELECT judge_model, count(*) FROM judge_results WHERE status = 'ok'"
                " AND rubric_name = 'href-overall' GROUP BY judge_model"
            ).fetchall()
        )
    assert judges == {"judge-alpha": N, "judge-beta": N}
    win.pairs.show_in_all(1)
    qtbot.waitUntil(lambda: win.display.verdicts.shown("overall").judge == "tie")
    win.context.runner.shutdown()


def test_a_sample_drawn_in_the_window_is_what_q_walks(qtbot, two_servers) -> None:
    project = two_servers
    assert main(["judge", str(project), "--rubric", "href-overall", "--profile", "alpha"]) == 0
    win = open_window(qtbot, project, profile="alpha")
    press(
        qtbot,
        Qt.Key.Key_S,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    dialog = win.queue.dialog
    qtbot.waitUntil(lambda: dialog is not None and dialog.isVisible())
    dialog.size_box.setValue(3)
    dialog.seed.setValue(7)
    shot(dialog, "sample-dialog.png")
    dialog.accept()
    qtbot.waitUntil(lambda: "sample #1: 3 of 6 judged pairs" in win.statusBar().currentMessage())
    assert QApplication.focusWidget() is win.pairs.table  # the keys act on pairs again
    with open_project(project, readonly=True) as store:
        drawn = latest_sample(store, "href-overall")
        assert drawn is not None and (drawn.size, drawn.seed, drawn.method) == (3, 7, "uniform")
        frame = sample_frame(store, drawn.id)
    order = [pid for _, pid in sorted((p.position, pid) for pid, p in frame.items()
                                      if p.position is not None)]  # fmt: skip
    outside = next(i for i in range(1, N + 1) if i not in order)
    win.pairs.show_in_all(outside)
    qtbot.waitUntil(lambda: win.session.current is not None and win.session.current.id == outside)
    for pair_id in order:  # Q walks the sample in the order drawn, not the queue's
        press(qtbot, Qt.Key.Key_Q)
        qtbot.waitUntil(lambda pid=pair_id: win.session.current.id == pid)
    win.context.runner.shutdown()
