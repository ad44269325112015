"""Make docs/trajectories.png: two runs of an agent on one task side by side, from
examples/agent_runs.jsonl (the disk clean-up pair: one run asks before it deletes, the
other wipes /var/log), on the built-in ``trajectory`` rubric, D on and the second step
unfolded, with a reviewer's verdicts on two dimensions, as a reviewer sees it. Uses a
scratch folder for the project and the settings, so a reviewer's own are safe.

    xvfb-run -s "-screen 0 1600x1000x24" .venv/bin/python docs/trajectories_screenshot.py
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "trajectories.png"
EXAMPLES = HERE.parent / "examples" / "agent_runs.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--pair", default="disk-cleanup-web3", help="the example pair shown")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="tiebreak-screenshot-"))
    for name in ("TIEBREAK_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        os.environ[name] = str(scratch / name.lower())

    from PySide6.QtWidgets import QApplication

    from desktop.adapters.store import open_project
    from desktop.domain.verdicts import Verdict
    from desktop.services.app_settings import AppSettings
    from desktop.services.importing import import_file
    from desktop.services.session import ReviewSession
    from desktop.ui.main_window import MainWindow

    project = scratch / "agents.tiebreak"
    with open_project(project, create=True) as store:
        import_file(store, EXAMPLES)
    app = QApplication([])
    settings = AppSettings(reviewer="ada")
    window = MainWindow(ReviewSession.open(project, settings), settings)
    window.resize(1600, 1000)
    window.show()

    def wait(done, timeout: float) -> None:
        end = time.monotonic() + timeout
        while not done() and time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    wait(lambda: not window.context.runner.busy(), 30.0)
    model = window.pairs.model
    row = next(i for i in range(model.rowCount()) if model.row_at(i).external_id == args.pair)
    window.pairs.table.selectRow(row)
    wait(lambda: False, 0.5)
    window.editing.set_verdict("actions", Verdict.A)
    window.editing.set_verdict("task_completion", Verdict.A)
    window.shortcuts["toggle_diff"].trigger()  # D: per step, and the final answers' words
    window.shortcuts["next_step"].trigger()
    window.shortcuts["next_step"].trigger()  # step 2: A looks before it deletes, B wipes
    window.shortcuts["unfold_step"].trigger()
    wait(lambda: not window.context.runner.busy(), 30.0)
    wait(lambda: False, 1.0)  # let the last repaint land
    if not window.grab().save(str(args.out), "PNG"):
        raise SystemExit(f"{args.out}: could not be written")
    print(args.out)
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
