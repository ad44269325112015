"""Two checkouts measured in one run, turn and turn about: this one and a reference (today's
main, with its own .venv). For a change that must not make the window, export or figures
slower, on a machine shared with others, where only figures taken side by side compare.

Per round, each checkout in turn (the order alternates): the window's start to the first
pair painted (bench_gui's child, best of three starts), next pair p50 and p95 and a switch
of judge (as bench_gui's ``in_process`` times them, in a child), `tiebreak export` of the
100,000 pairs with verdicts that bench_import_export builds, and `tiebreak stats` on them;
each on the wall clock and on the CPU clock of the process measured. Each checkout runs
its own package with its own interpreter; its bytecode is compiled before timing into a
folder of this run (PYTHONPYCACHEPREFIX; PYTHONDONTWRITEBYTECODE is dropped), as every
start after a user's first finds it. The two exports and the two stats outputs
must agree in every column the reference writes, or the run fails (this checkout may add
columns; its stats may say more, which the output notes). The projects are made by the
reference checkout's own code, and copied for this one, which migrates its copies once,
untimed. An import of the 100,000 pairs into a new project is timed too. Prints one JSON
object: the median of each figure per checkout, their ratio (this / reference), and every
sample.

    git worktree add ../reference <commit>       # today's main, beside this checkout
    ln -s "$PWD/.venv" ../reference/.venv         # or a .venv of its own
    .venv/bin/python tests/bench/side_by_side.py --reference ../reference
    .venv/bin/python tests/bench/side_by_side.py --reference ../reference --pairs 5000 --rounds 1

Named apart from bench_*.py: CI, which has no reference checkout, runs those.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from tests.bench import bench_gui, bench_import_export  # noqa: E402

# bench_gui's in_process (the window on the project, "next pair" pressed and painted, then
# a switch of judge until the list and the verdicts are painted), each timed on the wall
# clock and on the GUI thread's CPU clock (the window's own background threads, counting
# pairs after a switch, are left out): on a machine others load, the wall clock of a press
# says as much about them as about the window.
_IN_WINDOW = """
import json, statistics, sys, time
from pathlib import Path
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from desktop.services.app_settings import AppSettings
from desktop.services.judges import judge_choices
from desktop.services.session import ReviewSession
from desktop.ui.main_window import MainWindow

app = QApplication([])
settings = AppSettings(profile="local")
window = MainWindow(ReviewSession.open(Path(sys.argv[1]), settings), settings)
window.show()
app.processEvents()
window.pairs.focus()
wall, cpu = [], []
for _ in range(int(sys.argv[2])):
    start, start_cpu = time.perf_counter(), time.thread_time()
    QTest.keyClick(window.pairs.table, Qt.Key.Key_J)
    window.display.pair_view.repaint()
    wall.append((time.perf_counter() - start) * 1000)
    cpu.append((time.thread_time() - start_cpu) * 1000)
session = window.session
other = next(c.judge for c in judge_choices(session.store, session.rubric_name)
             if c.judge != session.judge_model)
start, start_cpu = time.perf_counter(), time.thread_time()
window.choices.show_judge(other)
window.pairs.table.repaint()
window.display.verdicts.repaint()
switch, switch_cpu = time.perf_counter() - start, time.thread_time() - start_cpu
app.processEvents()
window.close()
p95 = lambda values: statistics.quantiles(values, n=20)[-1]
print(json.dumps({
    "next_pair_p50_ms": statistics.median(wall), "next_pair_p95_ms": p95(wall),
    "next_pair_cpu_p50_ms": statistics.median(cpu), "next_pair_cpu_p95_ms": p95(cpu),
    "judge_switch_ms": switch * 1000, "judge_switch_cpu_ms": switch_cpu * 1000,
}))
"""


class Checkout:
    def __init__(self, name: str, root: Path, work: Path) -> None:
        self.name, self.root = name, root.resolve()
        self.python = self.root / ".venv" / "bin" / "python"
        if not self.python.exists():
            raise SystemExit(f"{self.python}: no such interpreter (make the checkout's .venv)")
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env = {
            **environ,
            "QT_QPA_PLATFORM": "offscreen",
            "PYTHONPATH": str(self.root),
            "PYTHONPYCACHEPREFIX": str(work / "pycache" / name),
            "TIEBREAK_CONFIG_DIR": str(work / "config" / name),
            "XDG_CONFIG_HOME": str(work / "xdg" / name),
        }

    def command(self, *args: str, out: Path | None = None) -> tuple[float, float]:
        """(wall, CPU) seconds of ``python -m desktop args`` run from this checkout."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with out.open("wb") if out else open(os.devnull, "wb") as fh:
            subprocess.run(
                [str(self.python), "-m", "desktop", *args],
                cwd=self.root,
                env=self.env,
                stdout=fh,
                stderr=subprocess.DEVNULL,
                check=True,
            )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu

    def first_pair(self, project: Path) -> tuple[float, float]:
        """(spawn to the end of the first frame, CPU seconds used by then): bench_gui's
        clocks, in its child."""
        spawned = time.monotonic()
        out = subprocess.run(
            [str(self.python), "-c", bench_gui._TIEBREAK, str(project)],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        return float(out[0]) - spawned, float(out[1])

    def in_window(self, project: Path, presses: int) -> dict[str, float]:
        out = subprocess.run(
            [str(self.python), "-c", _IN_WINDOW, str(project), str(presses)],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return json.loads(out.splitlines()[-1])


def forget_position(project: Path) -> None:
    """Each window starts at the first pair, as the first one did."""
    with sqlite3.connect(project) as conn:
        conn.execute("DELETE FROM settings WHERE key = 'position'")


_BUILD = """
import sys
from pathlib import Path
from tests.bench import bench_gui, bench_import_export
from desktop.adapters.store import open_project
from desktop.services.importing import import_file

data, gui, export, n = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
bench_import_export.generate(data, n)
for project in (gui, export):
    with open_project(project, create=True) as store:
        import_file(store, data)
bench_gui.plant_rare_word(gui)
bench_gui.plant_judges(gui)
bench_import_export.add_verdicts(export, n)
"""


def build(work: Path, n: int, reference: Checkout, ours: Checkout) -> dict[str, tuple[Path, Path]]:
    """bench_gui's project (four judges) and bench_import_export's (one judge, reviewers),
    made by the reference checkout with its own code, so its schema is the reference's own;
    then copied for this checkout, which brings its copies up to date (its migrations) once,
    untimed, as a user's first opening after an upgrade does."""
    data = work / "pairs.jsonl"
    made = {
        side.name: (work / f"gui-{side.name}.tiebreak", work / f"export-{side.name}.tiebreak")
        for side in (reference, ours)
    }
    gui, export = made[reference.name]
    if not export.exists():
        subprocess.run(
            [str(reference.python), "-c", _BUILD, str(data), str(gui), str(export), str(n)],
            cwd=reference.root,
            env=reference.env,
            check=True,
        )
    for source, copy in zip(made[reference.name], made[ours.name], strict=True):
        if not copy.exists():
            shutil.copyfile(source, copy)
            ours.command("stats", str(copy))  # the migrations run here, untimed
    return made


def common_columns(reference: bytes, ours: bytes) -> tuple[list[list[str]], list[list[str]]]:
    """Both exports cut to the reference's columns: ours may add columns (who gave a human
    verdict, how, when, the note), but every column the reference writes must hold the same
    cells."""
    import csv
    import io

    theirs = list(csv.reader(io.StringIO(reference.decode("utf-8-sig"))))
    mine = list(csv.reader(io.StringIO(ours.decode("utf-8-sig"))))
    where = [mine[0].index(name) if name in mine[0] else -1 for name in theirs[0]]
    return theirs, [[row[i] if i >= 0 else "<missing>" for i in where] for row in mine]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, required=True, help="e.g. /work/main")
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--presses", type=int, default=500)
    parser.add_argument("--work", type=Path, help="keep the projects here (default: temporary)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="tiebreak-side-by-side-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        sides = [Checkout("reference", args.reference, work), Checkout("ours", REPO, work)]
        projects = build(work, args.pairs, *sides)
        samples: dict[str, dict[str, list[float]]] = {s.name: {} for s in sides}
        outputs: dict[str, list[bytes]] = {}
        for side in sides:  # each checkout's bytecode, compiled once and untimed
            gui = projects[side.name][0]
            subprocess.run(
                [str(side.python), "-m", "compileall", "-q", str(side.root / "desktop")],
                env=side.env,
                check=True,
            )
            forget_position(gui)
            side.first_pair(gui)
        for round_ in range(args.rounds):
            for side in sides if round_ % 2 == 0 else sides[::-1]:
                got = samples[side.name]
                gui, export = projects[side.name]
                print(f"round {round_ + 1}: {side.name}", file=sys.stderr, flush=True)
                forget_position(gui)
                starts = []
                for _ in range(3):
                    starts.append(side.first_pair(gui))
                    forget_position(gui)
                got.setdefault("first_pair_s", []).append(min(s[0] for s in starts))
                got.setdefault("first_pair_cpu_s", []).append(min(s[1] for s in starts))
                for key, value in side.in_window(gui, args.presses).items():
                    got.setdefault(key, []).append(value)
                forget_position(gui)
                imported = work / f"import-{side.name}.tiebreak"
                imported.unlink(missing_ok=True)
                side.command("new", str(imported))
                wall, cpu = side.command("import", str(imported), str(work / "pairs.jsonl"))
                got.setdefault("import_s", []).append(wall)
                got.setdefault("import_cpu_s", []).append(cpu)
                csv = work / f"export-{side.name}.csv"
                wall, cpu = side.command(
                    "export", str(export), str(csv), "--rubric", bench_import_export.RUBRIC
                )
                got.setdefault("export_s", []).append(wall)
                got.setdefault("export_cpu_s", []).append(cpu)
                text = work / f"stats-{side.name}.txt"
                wall, cpu = side.command("stats", str(export), out=text)
                got.setdefault("stats_s", []).append(wall)
                got.setdefault("stats_cpu_s", []).append(cpu)
                outputs.setdefault(side.name, [csv.read_bytes(), text.read_bytes()])
        theirs, mine = common_columns(outputs["reference"][0], outputs["ours"][0])
        if theirs != mine:
            print("the two checkouts' exports differ in the reference's columns", file=sys.stderr)
            return 1
        medians = {
            name: {key: round(statistics.median(v), 4) for key, v in figures.items()}
            for name, figures in samples.items()
        }
        ratio = {
            key: round(medians["ours"][key] / medians["reference"][key], 3)
            for key in medians["ours"]
            if medians["reference"][key]
        }
        result = {
            "pairs": args.pairs,
            "rounds": args.rounds,
            "presses": args.presses,
            "reference": str(args.reference),
            "median": medians,
            "ratio_ours_to_reference": ratio,
            "samples": samples,
            "same_export_in_reference_columns": True,
            "stats_outputs_same": outputs["reference"][1] == outputs["ours"][1],
        }
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
